/*
 * netaddr.c - the text and the arithmetic of a jail's network
 * parameters.  See netaddr.h.
 */
#include "netaddr.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* A decimal number in [MIN, MAX], the whole of TEXT. */
static int parse_uint(const char *text, unsigned long min, unsigned long max, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)text[0]) || (text[0] == '0' && text[1] != '\0'))
		return -1;
	errno = 0;
	*v = strtoul(text, &end, 10);
	if (errno != 0 || *end != '\0' || *v < min || *v > max)
		return -1;
	return 0;
}

int netaddr_family(const char *text)
{
	unsigned char buf[16];

	if (inet_pton(AF_INET, text, buf) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, text, buf) == 1)
		return AF_INET6;
	return 0;
}

int netaddr_parse(const char *text, bool prefix_ok, struct netaddr *a, struct cell_err *e)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(text, '/');
	size_t n = slash != NULL ? (size_t)(slash - text) : strlen(text);
	unsigned long prefix;

	memset(a, 0, sizeof(*a));
	a->prefix = -1;
	if (n == 0 || n >= INET6_ADDRSTRLEN)
		return cell_err_set(e, 0, "expected an IPv4 or IPv6 address%s",
				    prefix_ok ? " [/PREFIX]" : "");
	memcpy(buf, text, n);
	buf[n] = '\0';
	a->family = netaddr_family(buf);
	if (a->family == 0 || inet_pton(a->family, buf, a->a) != 1)
		return cell_err_set(e, 0, "expected an IPv4 or IPv6 address%s",
				    prefix_ok ? " [/PREFIX]" : "");
	if (slash == NULL)
		return 0;
	if (!prefix_ok)
		return cell_err_set(e, 0, "expected an address without a prefix");
	if (parse_uint(slash + 1, 1, a->family == AF_INET ? 32 : 128, &prefix) < 0)
		return cell_err_set(e, 0, "expected a prefix length of 1-%d",
				    a->family == AF_INET ? 32 : 128);
	a->prefix = (int)prefix;
	return 0;
}

void netaddr_format_addr(const struct netaddr *a, char *buf, size_t size)
{
	char text[INET6_ADDRSTRLEN];

	if (inet_ntop(a->family, a->a, text, sizeof(text)) == NULL)
		text[0] = '\0';
	snprintf(buf, size, "%s", text);
}

void netaddr_format(const struct netaddr *a, char *buf, size_t size)
{
	char text[INET6_ADDRSTRLEN];

	netaddr_format_addr(a, text, sizeof(text));
	if (a->prefix >= 0)
		snprintf(buf, size, "%s/%d", text, a->prefix);
	else
		snprintf(buf, size, "%s", text);
}

bool netaddr_same(const struct netaddr *x, const struct netaddr *y)
{
	return x->family == y->family && memcmp(x->a, y->a, (size_t)addr_len(x->family)) == 0;
}

bool netaddr_in_subnet(const struct netaddr *a, const struct netaddr *net)
{
	int bits = net->prefix;

	if (a->family != net->family || bits < 0)
		return false;
	for (int i = 0; bits > 0; i++, bits -= 8) {
		unsigned char mask = bits >= 8 ? 0xff : (unsigned char)(0xff << (8 - bits));

		if ((a->a[i] & mask) != (net->a[i] & mask))
			return false;
	}
	return true;
}

int netaddr_host(const struct netaddr *gw, unsigned long n, struct netaddr *out)
{
	int len = addr_len(gw->family), host_bits = len * 8 - gw->prefix;
	unsigned long long carry = n;

	if (gw->prefix < 0 || n == 0)
		return -1;
	/* A subnet with fewer hosts than N: none.  (Bits beyond 63 hold
	 * any N.) */
	if (host_bits < 64) {
		unsigned long long hosts = (1ULL << host_bits) - (gw->family == AF_INET ? 1 : 0);

		if ((unsigned long long)n >= hosts)
			return -1;
	}
	*out = *gw;
	/* The network's address: the host bits cleared. */
	for (int i = 0, bits = gw->prefix; i < len; i++, bits -= 8) {
		unsigned char mask = bits >= 8	 ? 0xff
				     : bits <= 0 ? 0
						 : (unsigned char)(0xff << (8 - bits));

		out->a[i] &= mask;
	}
	/* Plus N, from the last byte up. */
	for (int i = len - 1; i >= 0 && carry > 0; i--) {
		unsigned long long sum = out->a[i] + (carry & 0xff);

		out->a[i] = (unsigned char)sum;
		carry = (carry >> 8) + (sum >> 8);
	}
	return 0;
}

/* HOSTADDR of a published port: "[v6]" or v4, up to the colon before
 * the host port; *REST after that colon. */
static int port_addr(const char *text, struct netport *p, const char **rest, struct cell_err *e)
{
	const char *usage = "expected [HOSTADDR:]HOSTPORT:JAILPORT[/tcp|/udp]";
	char buf[INET6_ADDRSTRLEN + 2];
	const char *end;
	size_t n;

	if (text[0] == '[') {
		end = strchr(text, ']');
		if (end == NULL || end[1] != ':')
			return cell_err_set(e, 0, "%s", usage);
		n = (size_t)(end - text - 1);
		if (n >= sizeof(buf))
			return cell_err_set(e, 0, "%s", usage);
		memcpy(buf, text + 1, n);
		buf[n] = '\0';
		*rest = end + 2;
		if (netaddr_family(buf) != AF_INET6)
			return cell_err_set(e, 0, "expected an IPv6 address in brackets");
	} else {
		end = strchr(text, ':');
		n = (size_t)(end - text);
		if (n >= sizeof(buf))
			return cell_err_set(e, 0, "%s", usage);
		memcpy(buf, text, n);
		buf[n] = '\0';
		*rest = end + 1;
		if (netaddr_family(buf) != AF_INET)
			return cell_err_set(e, 0,
					    "expected an IPv4 address (an IPv6 one in brackets)");
	}
	p->has_addr = true;
	return netaddr_parse(buf, false, &p->addr, e);
}

int netport_parse(const char *text, struct netport *p, struct cell_err *e)
{
	const char *usage = "expected [HOSTADDR:]HOSTPORT:JAILPORT[/tcp|/udp]";
	char buf[128], *slash, *colon;
	const char *ports = text;
	unsigned long hp, jp;

	memset(p, 0, sizeof(*p));
	strcpy(p->proto, "tcp");
	/* Two colons (or a bracket): a host address comes first. */
	colon = strchr(text, ':');
	if ((text[0] == '[' || (colon != NULL && strchr(colon + 1, ':') != NULL)) &&
	    port_addr(text, p, &ports, e) < 0)
		return -1;
	if (strlen(ports) >= sizeof(buf))
		return cell_err_set(e, 0, "%s", usage);
	strcpy(buf, ports);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash++ = '\0';
		if (strcmp(slash, "tcp") != 0 && strcmp(slash, "udp") != 0)
			return cell_err_set(e, 0, "unknown protocol \"%s\" (tcp or udp)", slash);
		strcpy(p->proto, slash);
	}
	colon = strchr(buf, ':');
	if (colon == NULL)
		return cell_err_set(e, 0, "%s", usage);
	*colon++ = '\0';
	if (parse_uint(buf, 1, 65535, &hp) < 0 || parse_uint(colon, 1, 65535, &jp) < 0)
		return cell_err_set(e, 0, "ports are numbers of 1-65535 (%s)", usage);
	p->host_port = (unsigned int)hp;
	p->jail_port = (unsigned int)jp;
	return 0;
}

void netport_format(const struct netport *p, char *buf, size_t size)
{
	char addr[INET6_ADDRSTRLEN];

	if (!p->has_addr) {
		snprintf(buf, size, "%u:%u/%s", p->host_port, p->jail_port, p->proto);
		return;
	}
	netaddr_format_addr(&p->addr, addr, sizeof(addr));
	snprintf(buf, size, p->addr.family == AF_INET6 ? "[%s]:%u:%u/%s" : "%s:%u:%u/%s", addr,
		 p->host_port, p->jail_port, p->proto);
}

int netaddr_check_ifname(const char *name, struct cell_err *e)
{
	size_t n = strlen(name);

	if (n == 0 || n > 15 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return cell_err_set(e, 0, "expected an interface name of 1-15 bytes");
	for (const char *c = name; *c != '\0'; c++)
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c) ||
		    !isprint((unsigned char)*c))
			return cell_err_set(e, 0, "an interface name holds no '/', ':' or blanks");
	return 0;
}

int netaddr_check_bridge(const char *name, struct cell_err *e)
{
	if (netaddr_check_ifname(name, e) < 0)
		return -1;
	for (const char *c = name; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && strchr("_.-", *c) == NULL)
			return cell_err_set(e, 0, "a bridge's name is of [A-Za-z0-9_.-]");
	return 0;
}
