/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfexec.c -- the eBPF event source: has kernel/bpf/exec.bpf.c loaded
 * and attached (by a child, bpfload.c, which hands back the descriptors
 * of its maps and programs), fills its filter's maps and turns its
 * records (read by the ring reader below) into the proc connector's EXEC
 * events, so the core sees one kind of event whichever source runs --
 * with what the record says of the task attached (bpfexec_known(),
 * bpfrecord.c), which the core takes instead of reading /proc.  Its
 * socket filter on uid and gid changes (cge_ids, attached by the daemon
 * to a connector socket) writes those that pass to the same ring
 * buffer: they become the connector's UID and GID events.  Where that
 * one does not load, the exec's program is loaded alone, and
 * bpfexec_ids() says why: the daemon reads those changes from the
 * connector then.
 *
 * Built without libbpf, every function fails with -EOPNOTSUPP.
 */
#include "kernel_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_BPF

#include <linux/bpf.h>
#include <linux/types.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/bpf/exec_event.h"
#include "kernel/bpf/exec.skel.h"

/*
 * The ring buffer, read here rather than by libbpf's ring_buffer: that
 * maps the data pages twice, so that no record wraps at the end, and so
 * shows the ring twice in the daemon's resident memory.  Mapped once,
 * a record that wraps is copied whole into bounce[] before it is read.
 */
struct ring {
	int fd;	     /* the map's: readable when a record waits */
	size_t size; /* of the data, a power of two */
	long page;
	unsigned long *cons;	   /* the reader's position: ours to move */
	const unsigned long *prod; /* the program's */
	const unsigned char *data;
	unsigned char bounce[sizeof(struct execbpf_event)];
};

/*
 * What the daemon holds of the loaded object (a child loaded it:
 * bpfload.c): descriptors of the maps it fills, of its programs and of
 * the exec program's attachment, and the program's globals mapped.
 */
struct kept {
	struct bpfload l;	  /* the descriptors (kernel_private.h) */
	struct execbpf__bss *bss; /* mapped: the program's globals */
	struct execbpf__data *data;
	size_t bss_len, data_len;
};

struct bpfexec {
	struct kept k;
	struct ring rb;
	struct procev_event *out; /* during bpfexec_recv: where records go */
	size_t max, got;
	/* what each record of the last bpfexec_recv says (its events point
	 * here), malloc'd for nknown */
	struct task_known *known;
	size_t nknown;
	bool drained;
	uint64_t drops_seen;
	pid_t *tracked; /* the thread groups in the pids map, malloc'd */
	size_t ntracked;
};

/* One record into the caller's array; stops the ring buffer's loop
 * (the record is taken) once the array is full. */
static int
take(void *ctx, void *data, size_t len)
{
	struct bpfexec *b = ctx;
	const struct execbpf_event *r = data;
	struct procev_event *ev = &b->out[b->got];
	struct task_known *k = &b->known[b->got];

	if (bpfexec_ids_event(data, len, ev) == 0) {
		b->got++;
		return b->got == b->max ? -E2BIG : 0;
	}
	if (bpfexec_known(data, len, k) < 0)
		return 0; /* a record of no use: a wake-up (exec.bpf.c) */
	b->got++;
	memset(ev, 0, sizeof(*ev));
	ev->type = PROCEV_EXEC;
	ev->pid = (pid_t)r->pid;
	ev->tgid = (pid_t)r->tgid;
	ev->ts_ns = r->ts_ns;
	ev->known = k;
	return b->got == b->max ? -E2BIG : 0;
}

/* Map the map fd's ring of size bytes: its reader's page to write, the
 * program's page and the data once to read.  0 or -errno. */
static int
ring_map(struct ring *r, int fd, size_t size)
{
	void *p;

	r->fd = fd;
	r->size = size;
	r->page = sysconf(_SC_PAGESIZE);
	if ((p = mmap(NULL, (size_t)r->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
	    MAP_FAILED)
		return -errno;
	r->cons = p;
	p = mmap(NULL, (size_t)r->page + size, PROT_READ, MAP_SHARED, fd, r->page);
	if (p == MAP_FAILED)
		return -errno;
	r->prod = p;
	r->data = (const unsigned char *)p + r->page;
	return 0;
}

static void
ring_unmap(struct ring *r)
{
	if (r->cons != NULL)
		munmap(r->cons, (size_t)r->page);
	if (r->prod != NULL)
		munmap((void *)r->prod, (size_t)r->page + r->size);
	if (r->fd >= 0)
		close(r->fd);
	r->cons = NULL;
	r->prod = NULL;
	r->fd = -1;
}

/* The len bytes of the record at data offset off, in place or, when it
 * wraps, copied into bounce[]; NULL when it wraps and is too long to be
 * one of ours. */
static const void *
ring_record(struct ring *r, size_t off, size_t len)
{
	size_t head = r->size - off;

	if (len <= head)
		return r->data + off;
	if (len > sizeof(r->bounce))
		return NULL;
	memcpy(r->bounce, r->data + off, head);
	memcpy(r->bounce + head, r->data, len - head);
	return r->bounce;
}

/*
 * Hand each record the program committed to take(), in order, until the
 * ring is empty (or the next is still being written) or take() says
 * stop; the number handed, or take()'s error -- its record is consumed
 * all the same, as with libbpf's ring_buffer__consume().
 */
static int
ring_consume(struct ring *r, struct bpfexec *b)
{
	unsigned long cons = *r->cons;
	int n = 0;

	while (cons < __atomic_load_n(r->prod, __ATOMIC_ACQUIRE)) {
		size_t off = cons & (r->size - 1);
		uint32_t hdr = __atomic_load_n((const uint32_t *)(r->data + off), __ATOMIC_ACQUIRE);
		size_t len = hdr & ~(uint32_t)(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		const void *rec;
		int rc = 0;

		if (hdr & BPF_RINGBUF_BUSY_BIT)
			break;
		cons += (BPF_RINGBUF_HDR_SZ + len + 7) & ~7ul;
		off = (off + BPF_RINGBUF_HDR_SZ) & (r->size - 1);
		if (!(hdr & BPF_RINGBUF_DISCARD_BIT) && (rec = ring_record(r, off, len)) != NULL) {
			rc = take(b, (void *)rec, len);
			n++;
		}
		__atomic_store_n(r->cons, cons, __ATOMIC_RELEASE);
		if (rc < 0)
			return rc;
	}
	return n;
}

/* A global section's map (.bss, .data) of size bytes, mapped: at *at,
 * its length in *len; 0 or -errno. */
static int
map_globals(int fd, size_t size, void **at, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = (size + (size_t)page - 1) & ~((size_t)page - 1);
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	*at = p;
	*len = n;
	return 0;
}

static void
kept_close(struct kept *k)
{
	bpfload_close(&k->l); /* (the link's: detaches the program) */
	if (k->bss != NULL)
		munmap(k->bss, k->bss_len);
	if (k->data != NULL)
		munmap(k->data, k->data_len);
	k->bss = NULL;
	k->data = NULL;
}

int
bpfexec_open(struct bpfexec **out, size_t rbsize)
{
	struct bpfexec *b;
	const char *noids = getenv("CGENGINED_TEST_BPF_NOIDS");
	struct kept *k;
	int rc, ring;

	*out = NULL;
	if ((b = calloc(1, sizeof(*b))) == NULL)
		return -ENOMEM;
	k = &b->k;
	b->rb.fd = -1;
	if ((rc = bpfload_run(&k->l, rbsize, noids == NULL || strcmp(noids, "1") != 0)) < 0) {
		free(b);
		return rc;
	}
	if ((rc = map_globals(k->l.fd[BPFLOAD_BSS], k->l.bss_size, (void **)&k->bss,
			      &k->bss_len)) < 0 ||
	    (rc = map_globals(k->l.fd[BPFLOAD_DATA], k->l.data_size, (void **)&k->data,
			      &k->data_len)) < 0)
		goto fail;
	ring = k->l.fd[BPFLOAD_RING];
	k->l.fd[BPFLOAD_RING] = -1; /* the ring's now: ring_unmap() closes it */
	if ((rc = ring_map(&b->rb, ring, k->l.ring_size)) < 0)
		goto fail;
	*out = b;
	return 0;
fail:
	bpfexec_close(b);
	return rc;
}

int
bpfexec_ids(const struct bpfexec *b)
{
	return b->k.l.ids < 0 ? b->k.l.ids : b->k.l.fd[BPFLOAD_IDS];
}

void
bpfexec_hold_ids(struct bpfexec *b, bool hold)
{
	/* a full barrier after clearing it, as bpfexec_awake() */
	__atomic_store_n(&b->k.bss->hold_ids, hold ? 1u : 0u, __ATOMIC_SEQ_CST);
}

void
bpfexec_want_ids(struct bpfexec *b, bool uid, bool gid)
{
	__atomic_store_n(&b->k.data->want_uid, uid ? 1u : 0u, __ATOMIC_SEQ_CST);
	__atomic_store_n(&b->k.data->want_gid, gid ? 1u : 0u, __ATOMIC_SEQ_CST);
}

void
bpfexec_close(struct bpfexec *b)
{
	if (b == NULL)
		return;
	ring_unmap(&b->rb);
	kept_close(&b->k);
	free(b->known);
	free(b->tracked);
	free(b);
}

int
bpfexec_fd(const struct bpfexec *b)
{
	return b->rb.fd;
}

int
bpfexec_recv(struct bpfexec *b, struct procev_event *ev, size_t max)
{
	uint64_t drops = __atomic_load_n(&b->k.bss->drops, __ATOMIC_RELAXED);

	if (drops != b->drops_seen) {
		b->drops_seen = drops;
		return -ENOBUFS;
	}
	if (max == 0)
		return 0;
	if (max > b->nknown) {
		struct task_known *k = realloc(b->known, max * sizeof(*k));

		if (k == NULL)
			return -ENOMEM;
		b->known = k;
		b->nknown = max;
	}
	b->out = ev;
	b->max = max;
	b->got = 0;
	int rc = ring_consume(&b->rb, b);
	b->drained = rc >= 0;
	if (rc < 0 && rc != -E2BIG)
		return rc;
	return b->got > 0 ? (int)b->got : -EAGAIN;
}

bool
bpfexec_drained(const struct bpfexec *b)
{
	return b->drained;
}

void
bpfexec_awake(struct bpfexec *b, bool awake)
{
	/* a full barrier after clearing it: the reader's next look at the
	 * ring buffer comes after the program can see it asleep */
	__atomic_store_n(&b->k.bss->awake, awake ? 1u : 0u, __ATOMIC_SEQ_CST);
}

/* Add (add: true) or delete the keys of generation gen to/from map. */
static int
ids_apply(int map, uint32_t gen, const uint32_t *ids, size_t n, bool add)
{
	uint8_t one = 1;

	for (size_t i = 0; i < n; i++) {
		struct execbpf_id_key k = { .gen = gen, .id = ids[i] };
		int rc = add ? bpf_map_update_elem(map, &k, &one, BPF_ANY)
			     : bpf_map_delete_elem(map, &k);

		if (rc < 0 && (add || rc != -ENOENT))
			return rc;
	}
	return 0;
}

static int
names_apply(int map, uint32_t gen, const struct execkeys *k, bool add)
{
	uint8_t one = 1;

	for (size_t i = 0; i < k->nnames; i++) {
		struct execbpf_name_key key = { .gen = gen };
		int rc;

		memcpy(key.name, k->names[i], EXECBPF_COMM_LEN - 1);
		rc = add ? bpf_map_update_elem(map, &key, &one, BPF_ANY)
			 : bpf_map_delete_elem(map, &key);
		if (rc < 0 && (add || rc != -ENOENT))
			return rc;
	}
	return 0;
}

static int
anames_apply(int map, uint32_t gen, const struct execkeys *k, bool add)
{
	uint8_t one = 1;

	for (size_t i = 0; i < k->nanames; i++) {
		struct execbpf_hash_key key = { .gen = gen, .hash = k->anames[i] };
		int rc = add ? bpf_map_update_elem(map, &key, &one, BPF_ANY)
			     : bpf_map_delete_elem(map, &key);

		if (rc < 0 && (add || rc != -ENOENT))
			return rc;
	}
	return 0;
}

/* Empty generation gen of a key map of cap entries (whatever a failed
 * fill left): its keys are listed first, then deleted. */
static void
clear_gen(int map, size_t cap, size_t keysize, uint32_t gen)
{
	size_t n = 0;
	char *keys = malloc(cap * keysize);
	char cur[sizeof(struct execbpf_name_key)], next[sizeof(struct execbpf_name_key)];
	bool first = true;

	if (keys == NULL)
		return;
	while (n < cap &&
	       bpf_map_get_next_key(map, first ? NULL : cur, next) == 0) {
		uint32_t g;

		first = false;
		memcpy(cur, next, keysize);
		memcpy(&g, next, sizeof(g));
		if (g == gen)
			memcpy(keys + n++ * keysize, next, keysize);
	}
	for (size_t i = 0; i < n; i++)
		(void)bpf_map_delete_elem(map, keys + i * keysize);
	free(keys);
}

static void
clear_all(const struct kept *k, uint32_t gen)
{
	clear_gen(k->l.fd[BPFLOAD_UIDS], k->l.cap[0], sizeof(struct execbpf_id_key), gen);
	clear_gen(k->l.fd[BPFLOAD_GIDS], k->l.cap[1], sizeof(struct execbpf_id_key), gen);
	clear_gen(k->l.fd[BPFLOAD_NAMES], k->l.cap[2], sizeof(struct execbpf_name_key), gen);
	clear_gen(k->l.fd[BPFLOAD_ANAMES], k->l.cap[3], sizeof(struct execbpf_hash_key), gen);
}

/* The bits of a map's keys (exec_event.h): a word per 64. */
struct keybits {
	uint64_t w[EXECBPF_BITS_WORDS];
};

static void
bit_add(struct keybits *kb, uint64_t v)
{
	uint32_t bit = execbpf_bit(v);

	kb->w[bit / 64] |= 1ULL << (bit % 64);
}

/* A name key's value for execbpf_bit: its first 15 bytes up to a NUL,
 * NUL padded to 16, mixed (as the program mixes a name it reads). */
static uint64_t
name_value(const char *name)
{
	union {
		char c[EXECBPF_COMM_LEN];
		uint64_t w[2];
	} n = { .w = { 0, 0 } };

	for (size_t i = 0; i < EXECBPF_COMM_LEN - 1 && name[i] != '\0'; i++)
		n.c[i] = name[i];
	return execbpf_name_mix(n.w[0], n.w[1]);
}

/* The program's bits: with widen, also kb's (before kb's keys are in
 * force); else only kb's (after).  Each word in one store, so the
 * program always sees the bit of every key in force. */
static void
bits_store(volatile __u64 *bits, const struct keybits *kb, bool widen, size_t words)
{
	for (size_t i = 0; i < words; i++)
		__atomic_store_n(&bits[i], widen ? bits[i] | kb->w[i] : kb->w[i],
				 __ATOMIC_SEQ_CST);
}

/* The bits of the keys of k, into kb[0] (uids), kb[1] (gids), kb[2]
 * (names); none when k is wide. */
static void
bits_of(const struct execkeys *k, struct keybits kb[3])
{
	memset(kb, 0, 3 * sizeof(*kb));
	for (size_t i = 0; !k->wide && i < k->nuids; i++)
		bit_add(&kb[0], k->uids[i]);
	for (size_t i = 0; !k->wide && i < k->ngids; i++)
		bit_add(&kb[1], k->gids[i]);
	for (size_t i = 0; !k->wide && i < k->nnames; i++)
		bit_add(&kb[2], name_value(k->names[i]));
}

int
bpfexec_filter(struct bpfexec *b, const struct execkeys *k)
{
	struct kept *s = &b->k;
	uint32_t old = s->bss->gen, gen = old ^ 1u;
	struct keybits kb[3];
	volatile __u64 *bits[3] = { s->bss->bits_uids, s->bss->bits_gids, s->bss->bits_names };
	int rc = 0;

	clear_all(s, gen);
	if (!k->wide &&
	    ((rc = ids_apply(s->l.fd[BPFLOAD_UIDS], gen, k->uids, k->nuids, true)) < 0 ||
	     (rc = ids_apply(s->l.fd[BPFLOAD_GIDS], gen, k->gids, k->ngids, true)) < 0 ||
	     (rc = names_apply(s->l.fd[BPFLOAD_NAMES], gen, k, true)) < 0 ||
	     (rc = anames_apply(s->l.fd[BPFLOAD_ANAMES], gen, k, true)) < 0)) {
		s->data->wide = 1; /* keys that did not fit: no filter */
		clear_all(s, gen);
		return rc;
	}
	/* the hierarchies a record tells the groups in: a record names
	 * each by its id, so one written meanwhile is read right anyway */
	size_t nh = k->nhiers < EXECBPF_V1 ? k->nhiers : EXECBPF_V1;
	__atomic_store_n(&s->bss->nv1_hiers, 0u, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < nh; i++)
		s->bss->v1_hiers[i] = k->hiers[i];
	s->bss->v1_backward = k->hiers_backward;
	__atomic_store_n(&s->bss->nv1_hiers, (uint32_t)nh, __ATOMIC_SEQ_CST);
	/* the flip, one store each, the maps of gen whole before it: what
	 * widens the filter first (a map looked in, that may hold keys),
	 * what narrows it after */
	bool has[] = { k->wide, k->scripts, k->nanames > 0, !k->wide && k->ngids > 0,
		       !k->wide && k->nnames > 0 };
	volatile __u32 *flag[] = { &s->data->wide, &s->bss->scripts, &s->bss->ananicy,
				   &s->bss->has_gids, &s->bss->has_names };

	bits_of(k, kb);
	for (size_t i = 0; i < 3; i++)
		bits_store(bits[i], &kb[i], true, EXECBPF_BITS_WORDS);
	for (size_t i = 0; i < sizeof(has) / sizeof(has[0]); i++)
		if (has[i])
			__atomic_store_n(flag[i], 1u, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->bss->gen, gen, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < sizeof(has) / sizeof(has[0]); i++)
		if (!has[i])
			__atomic_store_n(flag[i], 0u, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < 3; i++)
		bits_store(bits[i], &kb[i], false, EXECBPF_BITS_WORDS);
	clear_all(s, old);
	return 0;
}

static bool
listed(const pid_t *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

int
bpfexec_track(struct bpfexec *b, const pid_t *pids, size_t n)
{
	int map = b->k.l.fd[BPFLOAD_PIDS];
	pid_t *copy = NULL;
	uint8_t one = 1;
	struct keybits kb = { .w = { 0 } };

	if (n == PROCEV_ALL || n > EXECBPF_PIDS_MAX) {
		__atomic_store_n(&b->k.bss->all_pids, 1u, __ATOMIC_SEQ_CST);
		return 0;
	}
	if (n > 0 && (copy = malloc(n * sizeof(*copy))) == NULL)
		return -ENOMEM;
	if (n > 0)
		memcpy(copy, pids, n * sizeof(*copy));
	/* the new ones first, then the old ones go: none is missed between */
	for (size_t i = 0; i < n; i++) {
		uint32_t bit = execbpf_pid_bit((uint32_t)pids[i]);

		kb.w[bit / 64] |= 1ULL << (bit % 64);
	}
	bits_store(b->k.bss->bits_pids, &kb, true, EXECBPF_PID_BITS_WORDS);
	for (size_t i = 0; i < n; i++) {
		uint32_t key = (uint32_t)pids[i];
		int rc = bpf_map_update_elem(map, &key, &one, BPF_ANY);

		if (rc < 0) {
			__atomic_store_n(&b->k.bss->all_pids, 1u, __ATOMIC_SEQ_CST);
			free(copy);
			return rc;
		}
	}
	__atomic_store_n(&b->k.bss->all_pids, 0u, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < b->ntracked; i++) {
		uint32_t key = (uint32_t)b->tracked[i];

		if (!listed(pids, n, b->tracked[i]))
			(void)bpf_map_delete_elem(map, &key);
	}
	bits_store(b->k.bss->bits_pids, &kb, false, EXECBPF_PID_BITS_WORDS);
	free(b->tracked);
	b->tracked = copy;
	b->ntracked = n;
	return 0;
}

void
bpfexec_stats(const struct bpfexec *b, struct bpfexec_stats *out)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(out, 0, sizeof(*out));
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(b->k.l.fd[BPFLOAD_EXEC], &info, &len) == 0)
		out->execs = info.run_cnt;
	out->passed = b->k.bss->passed;
	out->drops = b->k.bss->drops;
}

#else /* !HAVE_BPF */

int
bpfexec_open(struct bpfexec **out, size_t rbsize)
{
	*out = NULL;
	return -EOPNOTSUPP;
}

void
bpfexec_close(struct bpfexec *b)
{
}

int
bpfexec_fd(const struct bpfexec *b)
{
	return -1;
}

int
bpfexec_recv(struct bpfexec *b, struct procev_event *ev, size_t max)
{
	return -EOPNOTSUPP;
}

bool
bpfexec_drained(const struct bpfexec *b)
{
	return true;
}

void
bpfexec_awake(struct bpfexec *b, bool awake)
{
}

int
bpfexec_filter(struct bpfexec *b, const struct execkeys *k)
{
	return -EOPNOTSUPP;
}

int
bpfexec_track(struct bpfexec *b, const pid_t *pids, size_t n)
{
	return -EOPNOTSUPP;
}

void
bpfexec_stats(const struct bpfexec *b, struct bpfexec_stats *out)
{
	memset(out, 0, sizeof(*out));
}

int
bpfexec_ids(const struct bpfexec *b)
{
	return -EOPNOTSUPP;
}

void
bpfexec_hold_ids(struct bpfexec *b, bool hold)
{
	/* a full barrier after clearing it, as bpfexec_awake() */
	__atomic_store_n(&b->k.bss->hold_ids, hold ? 1u : 0u, __ATOMIC_SEQ_CST);
}

void
bpfexec_want_ids(struct bpfexec *b, bool uid, bool gid)
{
}

void
bpfexec_hold_ids(struct bpfexec *b, bool hold)
{
}

#endif
