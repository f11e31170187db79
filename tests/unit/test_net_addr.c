/*
 * test_net_addr.c - cell-net's values (src/net/addr.c): addresses and
 * prefixes, networks, interface names, keys, the host veth's name and
 * published ports, each checked before cell-net makes anything.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/socket.h>

#include "addr.h"

static void parse_ok(const char *text, bool need_prefix, int family, unsigned int prefix,
		     const char *back)
{
	struct net_addr a;
	struct cell_err e;
	char buf[NET_ADDR_TEXT];

	cell_err_clear(&e);
	assert_int_equal(net_addr_parse(text, need_prefix, &a, &e), 0);
	assert_int_equal(a.family, family);
	assert_int_equal(a.prefix, prefix);
	net_addr_format(&a, true, buf, sizeof(buf));
	assert_string_equal(buf, back);
}

static void parse_bad(const char *text, bool need_prefix, const char *msg)
{
	struct net_addr a;
	struct cell_err e;

	cell_err_clear(&e);
	assert_int_equal(net_addr_parse(text, need_prefix, &a, &e), -1);
	assert_string_equal(e.msg, msg);
}

static void test_addresses(void **state)
{
	(void)state;
	parse_ok("192.0.2.1/24", true, AF_INET, 24, "192.0.2.1/24");
	parse_ok("2001:db8::1/64", true, AF_INET6, 64, "2001:db8::1/64");
	parse_ok("2001:0db8:0:0::0001/128", true, AF_INET6, 128, "2001:db8::1/128");
	parse_ok("198.51.100.7", false, AF_INET, 32, "198.51.100.7/32");
	parse_ok("0.0.0.0/0", true, AF_INET, 0, "0.0.0.0/0");
	parse_bad("192.0.2.300/24", true, "bad address \"192.0.2.300/24\"");
	parse_bad("192.0.2.1", true, "bad address \"192.0.2.1\": no /PREFIX");
	parse_bad("192.0.2.1/33", true, "bad address \"192.0.2.1/33\": prefix not in 0..32");
	parse_bad("2001:db8::1/129", true, "bad address \"2001:db8::1/129\": prefix not in 0..128");
	parse_bad("192.0.2.1/-1", true, "bad address \"192.0.2.1/-1\": prefix not in 0..32");
	parse_bad("192.0.2.1/24x", true, "bad address \"192.0.2.1/24x\": prefix not in 0..32");
	parse_bad("192.0.2.1/", true, "bad address \"192.0.2.1/\": prefix not in 0..32");
	parse_bad("/24", true, "bad address \"/24\"");
	parse_bad("", false, "bad address \"\"");
	parse_bad("cell0", false, "bad address \"cell0\"");
	parse_bad("192.0.2.1/24", false, "bad address \"192.0.2.1/24\": want no /PREFIX");
}

static void network_is(const char *text, const char *want)
{
	struct net_addr a, net;
	struct cell_err e;
	char buf[NET_ADDR_TEXT];

	cell_err_clear(&e);
	assert_int_equal(net_addr_parse(text, true, &a, &e), 0);
	net_addr_network(&a, &net);
	net_addr_format(&net, true, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_networks(void **state)
{
	(void)state;
	network_is("192.0.2.77/24", "192.0.2.0/24");
	network_is("198.51.100.77/26", "198.51.100.64/26");
	network_is("192.0.2.77/32", "192.0.2.77/32");
	network_is("192.0.2.77/0", "0.0.0.0/0");
	network_is("2001:db8:1:2::9/64", "2001:db8:1:2::/64");
	network_is("2001:db8:ffff::1/33", "2001:db8:8000::/33");
}

static void test_names_and_keys(void **state)
{
	(void)state;
	assert_true(net_ifname_valid("eth0"));
	assert_true(net_ifname_valid("cell0"));
	assert_true(net_ifname_valid("br-ext_1.2"));
	assert_true(net_ifname_valid("abcdefghijklmno"));
	assert_false(net_ifname_valid("abcdefghijklmnop"));
	assert_false(net_ifname_valid(""));
	assert_false(net_ifname_valid("."));
	assert_false(net_ifname_valid(".."));
	assert_false(net_ifname_valid("br\"x"));
	assert_false(net_ifname_valid("a b"));
	assert_false(net_ifname_valid("a/b"));
	assert_false(net_ifname_valid("a:1"));

	assert_true(net_key_valid("0123abcd-42"));
	assert_true(net_key_valid("kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"));
	assert_false(net_key_valid("kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"));
	assert_false(net_key_valid(""));
	assert_false(net_key_valid("Web"));
	assert_false(net_key_valid("a_b"));
	assert_false(net_key_valid("a\"b"));
}

static void test_host_ifname(void **state)
{
	char buf[16];

	(void)state;
	/* FNV-1a-32's published values: "" and "a". */
	net_host_ifname("", buf, sizeof(buf));
	assert_string_equal(buf, "cv811c9dc5");
	net_host_ifname("a", buf, sizeof(buf));
	assert_string_equal(buf, "cve40c292c");
	net_host_ifname("t-1", buf, sizeof(buf));
	assert_string_equal(buf, "cv73773861");
	assert_true(net_ifname_valid(buf));
	net_bridge_tmpname("a", buf, sizeof(buf));
	assert_string_equal(buf, "cbe40c292c");
}

static void publish_ok(const char *text, enum net_proto proto, const char *host,
		       unsigned int host_port, unsigned int jail_port)
{
	struct net_publish p;
	struct cell_err e;
	char buf[NET_ADDR_TEXT];

	cell_err_clear(&e);
	assert_int_equal(net_publish_parse(text, &p, &e), 0);
	assert_int_equal(p.proto, proto);
	assert_int_equal(p.host_port, host_port);
	assert_int_equal(p.jail_port, jail_port);
	if (host == NULL) {
		assert_true(p.any_host);
		return;
	}
	assert_false(p.any_host);
	net_addr_format(&p.host, false, buf, sizeof(buf));
	assert_string_equal(buf, host);
}

static void publish_bad(const char *text, const char *msg)
{
	struct net_publish p;
	struct cell_err e;

	cell_err_clear(&e);
	assert_int_equal(net_publish_parse(text, &p, &e), -1);
	assert_string_equal(e.msg, msg);
}

static void test_publish(void **state)
{
	(void)state;
	publish_ok("tcp::8080:80", NET_TCP, NULL, 8080, 80);
	publish_ok("udp:198.51.100.1:53:5353", NET_UDP, "198.51.100.1", 53, 5353);
	publish_ok("tcp:2001:db8::1:8080:80", NET_TCP, "2001:db8::1", 8080, 80);
	publish_ok("tcp:[2001:db8::1]:443:8443", NET_TCP, "2001:db8::1", 443, 8443);
	publish_ok("tcp:[]:1:65535", NET_TCP, NULL, 1, 65535);
	publish_bad("sctp::8080:80",
		    "bad publish \"sctp::8080:80\": protocol \"sctp\" is not tcp or udp");
	publish_bad("tcp:8080:80",
		    "bad publish \"tcp:8080:80\": not PROTO:HOSTADDR:HOSTPORT:JAILPORT");
	publish_bad("8080:80", "bad publish \"8080:80\": not PROTO:HOSTADDR:HOSTPORT:JAILPORT");
	publish_bad("tcp::0:80", "bad publish \"tcp::0:80\": bad host port \"0\": not in 1..65535");
	publish_bad("tcp::80:65536",
		    "bad publish \"tcp::80:65536\": bad jail port \"65536\": not in 1..65535");
	publish_bad("tcp::80:", "bad publish \"tcp::80:\": bad jail port \"\": not in 1..65535");
	publish_bad("tcp::+80:80",
		    "bad publish \"tcp::+80:80\": bad host port \"+80\": not in 1..65535");
	publish_bad(
		"tcp:192.0.2.1/24:80:80",
		"bad publish \"tcp:192.0.2.1/24:80:80\": bad address \"192.0.2.1/24\": want no /PREFIX");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addresses),      cmocka_unit_test(test_networks),
		cmocka_unit_test(test_names_and_keys), cmocka_unit_test(test_host_ifname),
		cmocka_unit_test(test_publish),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
