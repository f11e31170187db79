/* Unit tests of netaddr.c: the text of addresses and published ports,
 * and the subnet arithmetic that chooses a jail's address; and
 * spec_check()'s rules for the network's parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "err.h"
#include "net.h"
#include "netaddr.h"
#include "param.h"
#include "spec.h"

static void canon(const char *text, const char *want)
{
	char buf[NETADDR_TEXT];
	struct cell_err e;
	struct netaddr a;

	assert_int_equal(netaddr_parse(text, true, &a, &e), 0);
	netaddr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void addresses_read_back_in_their_canonical_spelling(void **state)
{
	canon("192.0.2.5/24", "192.0.2.5/24");
	canon("192.0.2.5", "192.0.2.5");
	canon("2001:DB8:0:0::1/64", "2001:db8::1/64");
	canon("::1", "::1");
}

static void bad_addresses_say_what_is_wrong(void **state)
{
	struct cell_err e;
	struct netaddr a;

	assert_int_equal(netaddr_parse("", true, &a, &e), -1);
	assert_int_equal(netaddr_parse("192.0.2.5/0", true, &a, &e), -1);
	assert_string_equal(e.msg, "expected a prefix length of 1-32");
	assert_int_equal(netaddr_parse("192.0.2.5/24", false, &a, &e), -1);
	assert_string_equal(e.msg, "expected an address without a prefix");
	assert_int_equal(netaddr_parse("192.0.2.5/+4", true, &a, &e), -1);
	assert_int_equal(netaddr_parse("example.org", true, &a, &e), -1);
}

static void host(const char *gw, unsigned long n, const char *want)
{
	char buf[NETADDR_TEXT];
	struct cell_err e;
	struct netaddr g, a;

	assert_int_equal(netaddr_parse(gw, true, &g, &e), 0);
	if (want == NULL) {
		assert_int_equal(netaddr_host(&g, n, &a), -1);
		return;
	}
	assert_int_equal(netaddr_host(&g, n, &a), 0);
	netaddr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void the_hosts_of_a_subnet_are_counted_from_its_network(void **state)
{
	host("192.0.2.1/24", 1, "192.0.2.1/24");
	host("192.0.2.1/24", 2, "192.0.2.2/24");
	host("192.0.2.77/24", 254, "192.0.2.254/24");
	/* The broadcast address is no host. */
	host("192.0.2.1/24", 255, NULL);
	host("198.51.100.9/30", 2, "198.51.100.10/30");
	host("198.51.100.9/30", 3, NULL);
	host("10.0.0.1/8", 256, "10.0.1.0/8");
	host("2001:db8::1/64", 2, "2001:db8::2/64");
	host("2001:db8::1/64", 65536, "2001:db8::1:0/64");
	host("2001:db8::1/126", 3, "2001:db8::3/126");
	host("2001:db8::1/126", 4, NULL);
}

static void subnets_contain_their_hosts_only(void **state)
{
	struct cell_err e;
	struct netaddr net, a;

	assert_int_equal(netaddr_parse("192.0.2.1/25", true, &net, &e), 0);
	assert_int_equal(netaddr_parse("192.0.2.100", true, &a, &e), 0);
	assert_true(netaddr_in_subnet(&a, &net));
	assert_int_equal(netaddr_parse("192.0.2.200", true, &a, &e), 0);
	assert_false(netaddr_in_subnet(&a, &net));
	assert_int_equal(netaddr_parse("2001:db8::1", true, &a, &e), 0);
	assert_false(netaddr_in_subnet(&a, &net));
}

static void port(const char *text, const char *want)
{
	char buf[NETADDR_TEXT + 32];
	struct cell_err e;
	struct netport p;

	if (want == NULL) {
		assert_int_equal(netport_parse(text, &p, &e), -1);
		return;
	}
	assert_int_equal(netport_parse(text, &p, &e), 0);
	netport_format(&p, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void published_ports_read_back(void **state)
{
	port("8080:80", "8080:80/tcp");
	port("53:53/udp", "53:53/udp");
	port("127.0.0.1:8080:80", "127.0.0.1:8080:80/tcp");
	port("[2001:db8::1]:8080:80/udp", "[2001:db8::1]:8080:80/udp");
	port("8080", NULL);
	port("65536:80", NULL);
	port("80:08", NULL);
	port("[192.0.2.1]:80:80", NULL);
	port("2001:db8::1:80:80", NULL);
	port("a:80:80", NULL);
}

static void interface_names_are_the_kernels(void **state)
{
	struct cell_err e;

	assert_int_equal(netaddr_check_ifname("eth0", &e), 0);
	assert_int_equal(netaddr_check_ifname("0123456789abcde", &e), 0);
	assert_int_equal(netaddr_check_ifname("0123456789abcdef", &e), -1);
	assert_int_equal(netaddr_check_ifname("a/b", &e), -1);
	assert_int_equal(netaddr_check_ifname("a b", &e), -1);
	assert_int_equal(netaddr_check_bridge("br$x", &e), -1);
	assert_int_equal(netaddr_check_bridge("cell0", &e), 0);
}

static void the_host_interface_is_named_from_the_key(void **state)
{
	/* FNV-1a-32's own test vectors: cell-net names the veth the same. */
	assert_int_equal(net_fnv1a(""), 0x811c9dc5u);
	assert_int_equal(net_fnv1a("a"), 0xe40c292cu);
	assert_int_equal(net_fnv1a("foobar"), 0xbf9cf968u);
}

/* A spec with a command and the given words (name=value). */
static void spec_of(struct jail_spec *s, const char *const *words)
{
	static char *const argv[] = {"/bin/true", NULL};
	struct cell_err e;

	spec_init(s);
	assert_int_equal(spec_set_argv(s, 1, argv, &e), 0);
	for (size_t i = 0; words[i] != NULL; i += 2)
		assert_int_equal(param_set(s, words[i], words[i + 1], NULL, &e), 0);
}

static void check(const char *const *words, int param, const char *msg)
{
	struct jail_spec s;
	struct cell_err e;

	cell_err_clear(&e);
	spec_of(&s, words);
	if (msg == NULL) {
		assert_int_equal(spec_check(&s, &e), 0);
	} else {
		assert_int_equal(spec_check(&s, &e), -1);
		assert_int_equal(e.about.param, param);
		assert_non_null(strstr(e.msg, msg));
	}
	spec_free(&s);
}

static void network_parameters_need_their_mode(void **state)
{
	check((const char *const[]){"ip4.addr", "192.0.2.5/24", NULL}, PARAM_IP4,
	      "needs net bridge");
	check((const char *const[]){"publish", "80:80", NULL}, PARAM_PUBLISH, "needs net bridge");
	check((const char *const[]){"gateway", "192.0.2.1/24", NULL}, PARAM_GATEWAY,
	      "needs net bridge");
	check((const char *const[]){"net", "host", "dns", "192.0.2.53", NULL}, PARAM_DNS,
	      "needs net bridge, slirp or ns:PATH");
	check((const char *const[]){"net", "ns:/run/netns/x", "dns", "192.0.2.53", NULL}, 0, NULL);
	check((const char *const[]){"vnet.mtu", "9000", NULL}, PARAM_VNET_MTU, "needs net bridge");
	check((const char *const[]){"net", "slirp", "vnet.mtu", "9000", NULL}, PARAM_VNET_MTU,
	      "needs net bridge");
	check((const char *const[]){"net", "bridge", "vnet.mtu", "9000", NULL}, 0, NULL);
	check((const char *const[]){"vnet", "bridge", "ip4.addr", "192.0.2.5/24", "ip6.addr",
				    "2001:db8::5/64", NULL},
	      0, NULL);
}

static void slirp_refuses_addresses_and_gateways_and_takes_ports(void **state)
{
	check((const char *const[]){"net", "slirp", "ip4.addr", "192.0.2.5/24", NULL}, PARAM_IP4,
	      "not with net slirp");
	check((const char *const[]){"net", "slirp", "gateway", "192.0.2.1", NULL}, PARAM_GATEWAY,
	      "not with net slirp");
	check((const char *const[]){"vnet", "slirp", "publish", "8080:80", "publish", "53:53/udp",
				    "dns", "192.0.2.53", "vnet.interface", "tap0", NULL},
	      0, NULL);
}

static void addresses_are_given_once_and_not_the_gateways(void **state)
{
	check((const char *const[]){"net", "bridge", "ip4.addr", "192.0.2.5/24", "ip4.addr",
				    "192.0.2.5", NULL},
	      PARAM_IP4, "given twice");
	check((const char *const[]){"net", "bridge", "gateway", "192.0.2.1/24", "ip4.addr",
				    "192.0.2.1", NULL},
	      PARAM_IP4, "is the gateway's address");
	check((const char *const[]){"net", "bridge", "gateway", "192.0.2.1/24", "gateway",
				    "192.0.2.2/24", NULL},
	      PARAM_GATEWAY, "a second gateway of one family");
	check((const char *const[]){"net", "bridge", "gateway", "192.0.2.1/24", "gateway",
				    "2001:db8::1/64", NULL},
	      0, NULL);
}

static void either_address_name_takes_either_family(void **state)
{
	struct jail_spec s;

	spec_of(&s, (const char *const[]){"net", "bridge", "ip4.addr", "2001:db8::5/64", "ip6.addr",
					  "192.0.2.5/24", NULL});
	assert_int_equal(s.network.nip4, 1);
	assert_string_equal(s.network.ip4[0], "192.0.2.5/24");
	assert_int_equal(s.network.nip6, 1);
	assert_string_equal(s.network.ip6[0], "2001:db8::5/64");
	spec_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(addresses_read_back_in_their_canonical_spelling),
		cmocka_unit_test(bad_addresses_say_what_is_wrong),
		cmocka_unit_test(the_hosts_of_a_subnet_are_counted_from_its_network),
		cmocka_unit_test(subnets_contain_their_hosts_only),
		cmocka_unit_test(published_ports_read_back),
		cmocka_unit_test(interface_names_are_the_kernels),
		cmocka_unit_test(the_host_interface_is_named_from_the_key),
		cmocka_unit_test(network_parameters_need_their_mode),
		cmocka_unit_test(slirp_refuses_addresses_and_gateways_and_takes_ports),
		cmocka_unit_test(addresses_are_given_once_and_not_the_gateways),
		cmocka_unit_test(either_address_name_takes_either_family),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
