/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * siphash.c -- SipHash-2-4 (Aumasson and Bernstein, 2012), a keyed
 * 64-bit hash: without the 128-bit key nobody can predict its value,
 * let alone make two inputs share one.  Written from the paper's
 * description; tests/util/siphash-t.c checks the paper's test vector.
 */
#include "util.h"

static inline uint64_t
rotl(uint64_t x, unsigned b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t
load_le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

struct sip {
	uint64_t v0, v1, v2, v3;
};

static inline void
sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13) ^ s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16) ^ s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21) ^ s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17) ^ s->v2;
	s->v2 = rotl(s->v2, 32);
}

/* Mix one 64-bit word of the message in (two rounds: the "2" of 2-4). */
static inline void
sip_word(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t
siphash24(const unsigned char key[SIPHASH_KEY_LEN], const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
	struct sip s = { .v0 = k0 ^ 0x736f6d6570736575ull,
			 .v1 = k1 ^ 0x646f72616e646f6dull,
			 .v2 = k0 ^ 0x6c7967656e657261ull,
			 .v3 = k1 ^ 0x7465646279746573ull };
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		sip_word(&s, load_le64(p + i));
	/* the last word: the remaining bytes, and the length in the top byte */
	uint64_t last = (uint64_t)(len & 0xff) << 56;
	for (unsigned j = 0; i + j < len; j++)
		last |= (uint64_t)p[i + j] << (8 * j);
	sip_word(&s, last);
	s.v2 ^= 0xff;
	for (unsigned r = 0; r < 4; r++) /* the "4" of 2-4 */
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
