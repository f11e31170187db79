/*
 * seccomp_oci.c - an OCI profile (struct jail_seccomp_rules) compiled
 * with libseccomp into a BPF program.  See seccomp_oci.h.
 *
 * libseccomp builds the filter in a context and exports it only to a
 * file descriptor: the program goes through a memfd and is read back.
 */
#include "seccomp_oci.h"

#include <errno.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

/* The kernel's limit on a program's length. */
#define MAX_INSNS 4096

static void release_ctx(scmp_filter_ctx *ctx)
{
	if (*ctx != NULL)
		seccomp_release(*ctx);
}

/* The errno (or a tracer's message) rides in the action's low 16 bits;
 * EPERM when the profile does not say. */
static uint32_t with_errno(uint32_t action, int err)
{
	if (action == SCMP_ACT_ERRNO(0) || action == SCMP_ACT_TRACE(0))
		return action | ((uint32_t)(err < 0 ? EPERM : err) & 0xffffU);
	return action;
}

static int add_archs(scmp_filter_ctx ctx, const struct jail_seccomp_rules *r, struct cell_err *e)
{
	for (size_t i = 0; i < r->narchs; i++) {
		int rc = seccomp_arch_add(ctx, r->archs[i]);

		/* The native architecture is in every new context. */
		if (rc < 0 && rc != -EEXIST)
			return cell_err_set(e, -rc, "seccomp: add architecture 0x%x", r->archs[i]);
	}
	return 0;
}

/* Whether two conditions test the same argument.  One rule ANDs its
 * conditions, and libseccomp refuses two on one argument: such a list
 * means "any of these", a rule for each (as runc reads it). */
static bool same_index(const struct jail_seccomp_syscall *sc)
{
	for (size_t i = 0; i < sc->nargs; i++)
		for (size_t j = i + 1; j < sc->nargs; j++)
			if (sc->args[i].index == sc->args[j].index)
				return true;
	return false;
}

static struct scmp_arg_cmp cmp_of(const struct jail_seccomp_arg *a)
{
	return (struct scmp_arg_cmp){.arg = a->index,
				     .op = (enum scmp_compare)a->op,
				     .datum_a = a->value,
				     .datum_b = a->value_two};
}

static int add_rule(scmp_filter_ctx ctx, uint32_t action, int nr, const char *name,
		    const struct jail_seccomp_syscall *sc, struct cell_err *e)
{
	struct scmp_arg_cmp cmp[6];
	int rc = 0;

	if (sc->nargs == 0) {
		rc = seccomp_rule_add_array(ctx, action, nr, 0, NULL);
	} else if (!same_index(sc)) {
		/* Distinct indexes 0..5: at most six. */
		for (size_t i = 0; i < sc->nargs; i++)
			cmp[i] = cmp_of(&sc->args[i]);
		rc = seccomp_rule_add_array(ctx, action, nr, (unsigned int)sc->nargs, cmp);
	} else {
		for (size_t i = 0; i < sc->nargs && rc >= 0; i++) {
			cmp[0] = cmp_of(&sc->args[i]);
			rc = seccomp_rule_add_array(ctx, action, nr, 1, cmp);
		}
	}
	if (rc < 0)
		return cell_err_set(e, -rc, "seccomp: rule for %s", name);
	return 0;
}

static int add_syscalls(scmp_filter_ctx ctx, const struct jail_seccomp_rules *r, struct cell_err *e)
{
	uint32_t def = with_errno(r->default_action, r->default_errno);

	for (size_t i = 0; i < r->nsyscalls; i++) {
		const struct jail_seccomp_syscall *sc = &r->syscalls[i];
		uint32_t action = with_errno(sc->action, sc->errno_ret);

		/* libseccomp refuses a rule that does what the default does. */
		if (action == def)
			continue;
		for (char **n = sc->names; n != NULL && *n != NULL; n++) {
			int nr = seccomp_syscall_resolve_name(*n);

			/* A name for another kernel or architecture: left out. */
			if (nr == __NR_SCMP_ERROR)
				continue;
			if (add_rule(ctx, action, nr, *n, sc, e) < 0)
				return -1;
		}
	}
	return 0;
}

/* The context's program, through a memfd, into OUT. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_fprog *out, struct cell_err *e)
{
	cleanup_close int fd = memfd_create("cell-seccomp", MFD_CLOEXEC);
	cleanup_free struct sock_filter *insns = NULL;
	struct stat st;
	size_t size;
	int rc;

	if (fd < 0)
		return cell_err_set(e, errno, "seccomp: memfd_create");
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0)
		return cell_err_set(e, -rc, "seccomp: export the filter");
	if (fstat(fd, &st) < 0)
		return cell_err_set(e, errno, "seccomp: stat the filter");
	size = (size_t)st.st_size;
	if (size == 0 || size % sizeof(*insns) != 0 || size / sizeof(*insns) > MAX_INSNS)
		return cell_err_set(e, E2BIG, "seccomp: a filter of %zu bytes", size);
	insns = malloc(size);
	if (insns == NULL)
		return cell_err_set(e, ENOMEM, "seccomp: the filter");
	for (size_t done = 0; done < size;) {
		ssize_t n = pread(fd, (char *)insns + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return cell_err_set(e, n < 0 ? errno : EIO, "seccomp: read the filter");
		done += (size_t)n;
	}
	out->len = (unsigned short)(size / sizeof(*insns));
	out->filter = take_ptr(&insns);
	return 0;
}

int seccomp_oci_compile(const struct jail_seccomp_rules *r, struct sock_fprog *out,
			struct cell_err *e)
{
	__attribute__((cleanup(release_ctx))) scmp_filter_ctx ctx =
		seccomp_init(with_errno(r->default_action, r->default_errno));

	out->len = 0;
	out->filter = NULL;
	if (ctx == NULL)
		return cell_err_set(e, EINVAL, "seccomp: default action 0x%x", r->default_action);
	if (add_archs(ctx, r, e) < 0 || add_syscalls(ctx, r, e) < 0)
		return -1;
	return export_bpf(ctx, out, e);
}
