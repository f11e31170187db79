/*
 * addr.c - parsing and checking the values of cell-net's command line.
 * See addr.h.
 */
#include "addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

size_t net_addr_len(const struct net_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

/* A decimal number of at most MAX, nothing else. */
static bool parse_uint(const char *text, unsigned long max, unsigned long *out)
{
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return false;
	errno = 0;
	*out = strtoul(text, &end, 10);
	return errno == 0 && *end == '\0' && *out <= max;
}

int net_addr_parse(const char *text, bool need_prefix, struct net_addr *a, struct cell_err *e)
{
	char host[NET_ADDR_TEXT];
	const char *slash = strchr(text, '/');
	size_t len = slash != NULL ? (size_t)(slash - text) : strlen(text);
	unsigned long prefix;

	memset(a, 0, sizeof(*a));
	if (len == 0 || len >= sizeof(host))
		return cell_err_set(e, 0, "bad address \"%s\"", text);
	memcpy(host, text, len);
	host[len] = '\0';
	if (slash != NULL && !need_prefix)
		return cell_err_set(e, 0, "bad address \"%s\": want no /PREFIX", text);
	if (inet_pton(AF_INET, host, a->bytes) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, host, a->bytes) == 1)
		a->family = AF_INET6;
	else
		return cell_err_set(e, 0, "bad address \"%s\"", text);

	if (slash == NULL) {
		if (need_prefix)
			return cell_err_set(e, 0, "bad address \"%s\": no /PREFIX", text);
		a->prefix = (unsigned int)net_addr_len(a) * 8;
		return 0;
	}
	if (!parse_uint(slash + 1, net_addr_len(a) * 8, &prefix))
		return cell_err_set(e, 0, "bad address \"%s\": prefix not in 0..%zu", text,
				    net_addr_len(a) * 8);
	a->prefix = (unsigned int)prefix;
	return 0;
}

void net_addr_format(const struct net_addr *a, bool with_prefix, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN];

	if (inet_ntop(a->family, a->bytes, host, sizeof(host)) == NULL)
		snprintf(host, sizeof(host), "?");
	if (with_prefix)
		snprintf(buf, size, "%s/%u", host, a->prefix);
	else
		snprintf(buf, size, "%s", host);
}

void net_addr_network(const struct net_addr *a, struct net_addr *net)
{
	*net = *a;
	for (size_t i = 0; i < net_addr_len(a); i++) {
		unsigned int first = (unsigned int)i * 8;

		if (first >= a->prefix)
			net->bytes[i] = 0;
		else if (a->prefix - first < 8)
			net->bytes[i] &= (unsigned char)(0xff << (8 - (a->prefix - first)));
	}
}

bool net_ifname_valid(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > NET_IFNAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	/* Narrower than the kernel's rule (no '/', ':' or space): the name
	 * is also written between quotes in nftables batches. */
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
	       len;
}

bool net_key_valid(const char *key)
{
	size_t len = strlen(key);

	return len >= 1 && len <= NET_KEY_MAX &&
	       strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-") == len;
}

static uint32_t fnv1a32(const char *text)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
		h ^= *p;
		h *= 16777619u;
	}
	return h;
}

void net_host_ifname(const char *key, char *buf, size_t size)
{
	snprintf(buf, size, "cv%08x", fnv1a32(key));
}

void net_bridge_tmpname(const char *bridge, char *buf, size_t size)
{
	snprintf(buf, size, "cb%08x", fnv1a32(bridge));
}

const char *net_proto_name(enum net_proto proto)
{
	return proto == NET_UDP ? "udp" : "tcp";
}

static int parse_port(const char *text, const char *what, uint16_t *port, struct cell_err *e)
{
	unsigned long n;

	if (!parse_uint(text, 65535, &n) || n == 0)
		return cell_err_set(e, 0, "bad %s \"%s\": not in 1..65535", what, text);
	*port = (uint16_t)n;
	return 0;
}

/* The host address between PROTO: and :HOSTPORT, brackets taken off. */
static int parse_publish_host(char *host, struct net_publish *p, struct cell_err *e)
{
	size_t len = strlen(host);

	if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
		host[len - 1] = '\0';
		host++;
	}
	p->any_host = host[0] == '\0';
	if (p->any_host)
		return 0;
	return net_addr_parse(host, false, &p->host, e);
}

int net_publish_parse(const char *text, struct net_publish *p, struct cell_err *e)
{
	char copy[128];
	char *colon, *jail, *hostport;

	memset(p, 0, sizeof(*p));
	if (strlen(text) >= sizeof(copy))
		return cell_err_set(e, 0, "bad publish \"%s\": too long", text);
	strcpy(copy, text);
	/* From the right: the two ports, then PROTO at the left; what lies
	 * between is the host address, whose IPv6 form has colons itself. */
	jail = strrchr(copy, ':');
	if (jail == NULL)
		goto bad;
	*jail++ = '\0';
	hostport = strrchr(copy, ':');
	if (hostport == NULL)
		goto bad;
	*hostport++ = '\0';
	colon = strchr(copy, ':');
	if (colon == NULL)
		goto bad;
	*colon = '\0';
	if (strcmp(copy, "tcp") == 0)
		p->proto = NET_TCP;
	else if (strcmp(copy, "udp") == 0)
		p->proto = NET_UDP;
	else
		return cell_err_set(e, 0, "bad publish \"%s\": protocol \"%s\" is not tcp or udp",
				    text, copy);
	if (parse_publish_host(colon + 1, p, e) < 0 ||
	    parse_port(hostport, "host port", &p->host_port, e) < 0 ||
	    parse_port(jail, "jail port", &p->jail_port, e) < 0)
		return cell_err_prefix(e, "bad publish \"%s\"", text);
	return 0;
bad:
	return cell_err_set(e, 0, "bad publish \"%s\": not PROTO:HOSTADDR:HOSTPORT:JAILPORT", text);
}
