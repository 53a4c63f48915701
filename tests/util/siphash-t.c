/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * siphash-t.c -- the keyed hash (util/siphash.c) against the test
 * vectors of SipHash's paper and reference code, and the key file
 * (util/file.c's secret_file): made once, 0600, read back, refused
 * when others may read it or when it has another size.
 */
#include "util/util.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
main(void)
{
	unsigned char key[SIPHASH_KEY_LEN], msg[64], a[16], b[16];
	char dir[] = "/tmp/siphash-t.XXXXXX", path[256];
	struct stat st;

	plan(13);
	for (unsigned i = 0; i < sizeof(key); i++)
		key[i] = (unsigned char)i;
	for (unsigned i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)i;
	ok(siphash24(key, msg, 15) == 0xa129ca6149be45e5ull, "the paper's vector (15 bytes)");
	ok(siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ull, "the reference's first (empty)");
	ok(siphash24(key, msg, 8) == 0x93f5f5799a932462ull, "one whole word");
	ok(siphash24(key, msg, 63) == 0x958a324ceb064572ull, "63 bytes");
	key[0] ^= 1;
	ok(siphash24(key, msg, 15) != 0xa129ca6149be45e5ull, "another key, another hash");

	if (mkdtemp(dir) == NULL)
		bail("mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/sub/key", dir);
	is_int(-ENOENT, secret_file(path, a, sizeof(a), false), "missing, not made");
	is_int(0, secret_file(path, a, sizeof(a), true), "made (with its directory)");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == 16,
	   "mode 0600, 16 bytes");
	is_int(0, secret_file(path, b, sizeof(b), true), "read again");
	ok(memcmp(a, b, sizeof(a)) == 0, "the same key, not a new one");
	is_int(-EINVAL, secret_file(path, b, 8, false), "a file of another size is refused");
	if (chmod(path, 0644) < 0)
		bail("chmod: %s", strerror(errno));
	is_int(-EPERM, secret_file(path, b, sizeof(b), true), "one others may read too");
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	ok(rmdir(dir) == 0, "no temporary file left behind");
	return tap_done();
}
