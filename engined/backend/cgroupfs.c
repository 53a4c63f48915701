/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroupfs.c -- the backend that writes cgroupfs itself (kernel/cgfs.c),
 * with a cache of open cgroup.procs files, and changes the kernel's
 * nftables sets through one netlink socket (kernel/nft.c).  See
 * backend.h.
 */
#include "engined/backend/backend.h"
#include "engined/core/core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cgroupfs {
	struct backend table;
	struct backend_nft nft;
	struct cgfs_cache *fds;	  /* open cgroup.procs files */
	struct nftset_conn *conn; /* opened when first needed */
	bool conn_logged;	  /* that it cannot be opened, said once */
};

/* ---- groups -------------------------------------------------------------------- */

static int
fs_mkdir(void *arg, const struct hier *h, const char *path, bool *created)
{
	return cgfs_mkdir(h, path, created);
}

static int
fs_set(void *arg, const struct hier *h, const char *path, const char *key,
       const char *value)
{
	return cgfs_set(h, path, key, value);
}

static int
fs_move(void *arg, const struct hier *h, const char *path, pid_t tgid)
{
	const struct cgroupfs *fs = arg;

	return cgfs_move_cached(fs->fds, h, path, tgid);
}

static int
fs_rmdir(void *arg, const struct hier *h, const char *path)
{
	return cgfs_rmdir(h, path);
}

static bool
fs_is_empty(void *arg, const struct hier *h, const char *path)
{
	return cgfs_is_empty(h, path);
}

static void
fs_flush(void *arg)
{
	const struct cgroupfs *fs = arg;

	cgfs_cache_flush(fs->fds);
}

static int
fs_get(void *arg, const struct hier *h, const char *path, const char *key, char *buf,
       size_t len)
{
	return cgfs_get(h, path, key, buf, len);
}

static int
fs_children(void *arg, const struct hier *h, const char *path,
	    int (*fn)(void *fnarg, const char *name), void *fnarg)
{
	return cgfs_children(h, path, fn, fnarg);
}

static int
fs_id(void *arg, const struct hier *h, const char *path, uint64_t *id)
{
	return cgfs_id(h, path, id);
}

static int
fs_id_live(void *arg, const struct hier *h, uint64_t id)
{
	return cgfs_id_live(h, id);
}

/* ---- the kernel's sets, through libnftnl ------------------------------------ */

static int
conn_get(struct cgroupfs *fs, struct nftset_conn **out)
{
	int rc = 0;

	if (fs->conn == NULL && (rc = nftset_open(&fs->conn)) < 0) {
		if (!fs->conn_logged)
			log_error("cannot talk to nftables: %s", strerror(-rc));
		fs->conn_logged = true;
		return rc;
	}
	fs->conn_logged = false;
	*out = fs->conn;
	return 0;
}

static int
nft_add(void *arg, const struct nftset_ref *s, const uint64_t *ids, size_t k)
{
	struct nftset_conn *conn;
	int rc = conn_get(arg, &conn);

	return rc < 0 ? rc : nftset_add(conn, s, ids, k);
}

static int
nft_del(void *arg, const struct nftset_ref *s, const uint64_t *ids, size_t k)
{
	struct nftset_conn *conn;
	int rc = conn_get(arg, &conn);

	return rc < 0 ? rc : nftset_del(conn, s, ids, k);
}

static int
nft_list(void *arg, const struct nftset_ref *s, uint64_t **ids, size_t *k)
{
	struct nftset_conn *conn;
	int rc = conn_get(arg, &conn);

	return rc < 0 ? rc : nftset_list(conn, s, ids, k);
}

static uint32_t
nft_self(void *arg)
{
	const struct cgroupfs *fs = arg;

	return nftset_portid(fs->conn);
}

/* ---- life cycle ---------------------------------------------------------------- */

int
cgroupfs_new(struct cgroupfs **out)
{
	struct cgroupfs *fs = calloc(1, sizeof(*fs));

	if (fs == NULL || (fs->fds = cgfs_cache_new()) == NULL) {
		free(fs);
		return -ENOMEM;
	}
	fs->table = (struct backend){
		.place = { .mkdir = fs_mkdir,
			   .set = fs_set,
			   .move = fs_move,
			   .rmdir = fs_rmdir,
			   .is_empty = fs_is_empty,
			   .flush = fs_flush },
		.look = { .get = fs_get, .children = fs_children },
		.ids = { .id = fs_id, .id_live = fs_id_live },
		/* a write of cgroup.procs waits on nobody: the gate may use it */
		.gate = { .move_now = fs_move },
		.arg = fs,
	};
	fs->nft = (struct backend_nft){ .add = nft_add,
					.del = nft_del,
					.list = nft_list,
					.self = nft_self,
					.arg = fs };
	*out = fs;
	return 0;
}

const struct backend *
cgroupfs_table(const struct cgroupfs *fs)
{
	return &fs->table;
}

const struct backend_nft *
cgroupfs_nft(const struct cgroupfs *fs)
{
	return &fs->nft;
}

void
cgroupfs_free(struct cgroupfs *fs)
{
	if (fs == NULL)
		return;
	nftset_close(fs->conn);
	cgfs_cache_free(fs->fds);
	free(fs);
}
