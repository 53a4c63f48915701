/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nftref.c -- the name of an nftables set, "FAMILY TABLE SET": parsed
 * and written back.  Apart from nft.c, which talks to nf_tables through
 * libnftnl and libmnl, so that the core, which only parses the names a
 * policy gives, links neither library.
 */
#include "kernel_private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/netfilter.h>

/* ---- "FAMILY TABLE SET" ----------------------------------------------------- */

static const struct {
	const char *name;
	uint8_t family;
} families[] = {
	{ "ip", NFPROTO_IPV4 },	      { "ip6", NFPROTO_IPV6 },
	{ "inet", NFPROTO_INET },     { "arp", NFPROTO_ARP },
	{ "bridge", NFPROTO_BRIDGE }, { "netdev", NFPROTO_NETDEV },
};

/* Copy the next word of *s into out (a table or set name); 0 or -1. */
static int
next_word(const char **s, char *out, size_t len)
{
	const char *p = *s + strspn(*s, " \t");
	size_t n = strcspn(p, " \t");

	if (n == 0 || n >= len)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (p[i] <= ' ' || p[i] >= 0x7f || p[i] == '"' || p[i] == '\'')
			return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	*s = p + n;
	return 0;
}

int
nftset_parse(const char *spec, struct nftset_ref *r, char *err, size_t errlen)
{
	char fam[16];
	const char *s = spec;

	memset(r, 0, sizeof(*r));
	if (next_word(&s, fam, sizeof(fam)) < 0 ||
	    next_word(&s, r->table, sizeof(r->table)) < 0 ||
	    next_word(&s, r->set, sizeof(r->set)) < 0 || s[strspn(s, " \t")] != '\0') {
		snprintf(
			err, errlen,
			"expected \"FAMILY TABLE SET\" (e.g. \"inet filter www\"), names "
			"of printable characters, at most %d bytes",
			NFTSET_NAME_MAX - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (strcmp(fam, families[i].name) == 0) {
			r->family = families[i].family;
			return 0;
		}
	snprintf(err, errlen,
		 "unknown family \"%s\" (ip, ip6, inet, arp, bridge, netdev)", fam);
	return -EINVAL;
}

const char *
nftset_family_name(uint8_t family)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i].family == family)
			return families[i].name;
	return "?";
}

void
nftset_format(const struct nftset_ref *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s %s", nftset_family_name(r->family), r->table, r->set);
}
