/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw sequence-number state (--seq-state FILE).
 *
 * An outbound SA whose keys come from the configuration file comes back
 * with the same keys after a restart (a crash under Restart=on-failure, an
 * upgrade, a reboot). Starting again at its configured first number would
 * send every number, and so every IV (the sequence number, for GCM and
 * ChaCha20-Poly1305 here), a second time under the same key: the XOR of
 * two ciphertexts is that of the plaintexts, and GCM gives away its
 * authentication key too. So each such SA has a mark in this file, the
 * highest number it may have used, written durably before the SA uses a
 * number up to it:
 *
 *   - at start (and for the SAs a reload adds) an SA starts at
 *     max(its configured first number, its mark + 1) and reserves R numbers
 *     (--seq-reserve, 2^20 by default) above that: mark = first + R - 1;
 *     the file is written (new file, fsync, rename, fsync the folder)
 *     before the SA can send;
 *   - the data path never uses a number past the durable mark: the SA's
 *     hard packet limit (struct gw_sa hard_pkts, which esp_out.h's life_admit()
 *     checks per burst anyway) is capped at the numbers reserved; a packet past it is
 *     dropped as seq_unreserved, never sent (hard_real keeps the real limit
 *     for the expire events);
 *   - the management thread looks every tick (gw_seq_state_poll()): an SA
 *     within R/2 of its mark gets R more, written durably, then its cap is
 *     raised. A write that fails leaves the caps where they are (packets
 *     past them are dropped and counted) and is tried again each tick.
 *
 * How the tick finds those SAs without reading every one (at 100,000 SAs
 * a walk was ~300,000 cache lines every 20 ms, the worker's L3 and memory
 * bandwidth): the worker notes them. life_admit() (esp_out.h) compares a
 * burst's reservation with hard_pkts anyway; it compares with hard_pkts -
 * R/2 instead (gw.seq_gap), so a burst within R/2 of the cap takes
 * gw_life_admit_rest(), which sets the SA's bit in note[] (one bit a slot,
 * tested first: an atomic OR only when not set). The tick takes the
 * words with a bit set (exchange with 0) and looks at those SAs: O(SAs/64)
 * words and O(noted) SAs a tick. Every burst of an SA in that zone tests
 * its bit again, so a note lost to a race with the tick (the worker saw
 * the bit still set while the tick took it and read used_pkts before the
 * worker's add) is set by the SA's next burst: the renewal waits at most
 * one burst more, never R/2 numbers; an SA that sends nothing uses no
 * number. A cap hard_pkts changed by hasync.c (gw_seq_state_recap) or a
 * reload is compared by the next burst the same way. As a safety net the
 * tick also looks at SEQ_SWEEP kept SAs in turn (bound[], a rotating
 * cursor): every kept SA within ceil(kept / SEQ_SWEEP) ticks, 8 s at
 * 100,000 SAs; it is not what bounds a renewal (the per-burst note is),
 * only what would catch a path that moved used_pkts without life_admit().
 * A write still rewrites the whole file and raises every cap (caps_raise):
 * O(SAs) per write, not per tick.
 *
 * An entry is named by the SA's SPI, tunnel family and destination, never
 * by its keys: the file holds nothing secret. A changed key under the same
 * SPI just starts higher, which is harmless. Entries stay when their SA is
 * removed (it may come back with its keys). SAs installed through the
 * control socket (an IKE daemon's, or added by hand with vecsec-ctl) are
 * not kept: they do not come back after a restart; whoever adds them again
 * gives fresh keys (charon does) or a `seq`/`esn` start.
 *
 * Restoring an older copy of the file reopens the hole: the marks go back.
 *
 * Everything here runs under the control-plane lock (gw_cp_lock), or
 * before the workers start.
 */
#include "seqstate.h"
#include "gw_dp.h"
#include "gw_log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEQ_MAGIC "vecsec-gw-seq 1"

struct seq_ent {
	uint32_t spi;
	uint8_t mode;                   /* enum gw_sa_mode: the destination's family */
	struct gw_addr dst;             /* tunnel end point; zero in transport mode */
	uint64_t mark;                  /* the highest number reserved */
};

struct seq_slot {
	int32_t ent;                    /* -1: the slot's SA is not kept */
	int32_t pos;                    /* its place in bound[], -1: none */
	bool exhausted;                 /* no number left above the mark (non-ESN) */
	uint64_t first;                 /* the first number it sent */
};

static char *st_path;
static char st_dir[PATH_MAX];
static uint64_t st_reserve;
static struct seq_ent *ents;
static unsigned int nb_ents, cap_ents;
static uint32_t *idx;                   /* ent + 1, linear probing; 0 empty */
static unsigned int idx_mask;
static struct seq_slot *slots;
static unsigned int nb_slots;
/* the slots with an entry: what each tick looks at (charon's SAs cost nothing) */
static uint32_t *bound;
static unsigned int nb_bound;
/*
 * The SAs a worker noted near their cap (gw_seq_state_note()), one bit a
 * slot, [note_words]; allocated once (gw.max_sa bits) before gw.seq_gap is
 * set, freed only after the workers stopped (close)
 */
static uint64_t *note;
static unsigned int note_words;
static unsigned int sweep;              /* the safety net's place in bound[] */
#define SEQ_SWEEP 256u                  /* kept SAs a tick looks at in turn */
static bool dirty;                      /* a mark not written yet */
static bool failing;                    /* the last write failed (logged once) */

bool
gw_seq_state_on(void)
{
	return st_path != NULL;
}

bool
gw_seq_state_kept(const struct gw_sa_conf *c)
{
	return st_path != NULL && c->dir == GW_DIR_OUT && !gw_ctrl_origin(c->line);
}

static uint32_t
ent_hash(uint32_t spi, uint8_t mode, const struct gw_addr *dst)
{
	uint32_t h = 2166136261u ^ spi ^ ((uint32_t)mode << 24);

	for (unsigned int i = 0; i < sizeof(dst->b); i++)
		h = (h ^ dst->b[i]) * 16777619u;
	return h ^ (h >> 15);
}

static int
idx_rebuild(unsigned int size)
{
	uint32_t *n = calloc(size, sizeof(*n));

	if (n == NULL)
		return -ENOMEM;
	free(idx);
	idx = n;
	idx_mask = size - 1;
	for (unsigned int e = 0; e < nb_ents; e++) {
		uint32_t h = ent_hash(ents[e].spi, ents[e].mode, &ents[e].dst) & idx_mask;

		while (idx[h] != 0)
			h = (h + 1) & idx_mask;
		idx[h] = e + 1;
	}
	return 0;
}

/* The entry of (spi, mode, dst), added (mark 0) if add; -1 if none or out of memory. */
static int
ent_find(uint32_t spi, uint8_t mode, const struct gw_addr *dst, bool add)
{
	uint32_t h;

	if (idx != NULL) {
		for (h = ent_hash(spi, mode, dst) & idx_mask; idx[h] != 0; h = (h + 1) & idx_mask) {
			const struct seq_ent *e = &ents[idx[h] - 1];

			if (e->spi == spi && e->mode == mode &&
			    memcmp(&e->dst, dst, sizeof(*dst)) == 0)
				return (int)idx[h] - 1;
		}
	}
	if (!add)
		return -1;
	if (nb_ents == cap_ents) {
		unsigned int cap = cap_ents != 0 ? cap_ents * 2 : 64;
		struct seq_ent *n = realloc(ents, (size_t)cap * sizeof(*n));

		if (n == NULL)
			return -1;
		ents = n;
		cap_ents = cap;
	}
	ents[nb_ents] = (struct seq_ent){ .spi = spi, .mode = mode, .dst = *dst, .mark = 0 };
	nb_ents++;
	/* at most half full */
	if (idx == NULL || nb_ents * 2 > idx_mask + 1) {
		if (idx_rebuild(idx == NULL ? 128 : (idx_mask + 1) * 2) != 0) {
			nb_ents--;
			return -1;
		}
		return (int)nb_ents - 1;
	}
	for (h = ent_hash(spi, mode, dst) & idx_mask; idx[h] != 0; h = (h + 1) & idx_mask)
		;
	idx[h] = nb_ents;
	return (int)nb_ents - 1;
}

/* One line "out SPI ipv4|ipv6|transport DST|- MARK"; 0 or -EINVAL. */
static int
parse_line(char *line)
{
	char *tok[6], *save = NULL, *end;
	struct gw_addr dst = { 0 };
	unsigned long long spi, mark;
	uint8_t mode;
	int n = 0, e;

	for (char *t = strtok_r(line, " \t", &save); t != NULL; t = strtok_r(NULL, " \t", &save))
		if (n < 6)
			tok[n++] = t;
		else
			return -EINVAL;
	if (n != 5 || strcmp(tok[0], "out") != 0)
		return -EINVAL;
	errno = 0;
	spi = strtoull(tok[1], &end, 10);
	if (*end != '\0' || errno != 0 || spi > UINT32_MAX || tok[1][0] == '-')
		return -EINVAL;
	if (strcmp(tok[2], "ipv4") == 0) {
		mode = GW_MODE_TUN4;
		if (inet_pton(AF_INET, tok[3], dst.b) != 1)
			return -EINVAL;
	} else if (strcmp(tok[2], "ipv6") == 0) {
		mode = GW_MODE_TUN6;
		if (inet_pton(AF_INET6, tok[3], dst.b) != 1)
			return -EINVAL;
	} else if (strcmp(tok[2], "transport") == 0 && strcmp(tok[3], "-") == 0) {
		mode = GW_MODE_TRANS;
	} else {
		return -EINVAL;
	}
	errno = 0;
	mark = strtoull(tok[4], &end, 10);
	if (*end != '\0' || errno != 0 || tok[4][0] == '-')
		return -EINVAL;
	e = ent_find((uint32_t)spi, mode, &dst, true);
	if (e < 0)
		return -ENOMEM;
	if (mark > ents[e].mark)
		ents[e].mark = mark;
	return 0;
}

static int
read_file(char *err, size_t err_len)
{
	FILE *f = fopen(st_path, "re");
	char line[256];
	int ln = 0, rc = 0;
	bool magic = false;

	if (f == NULL) {
		if (errno == ENOENT)
			return 0;       /* the first start: written below */
		rc = -errno;
		snprintf(err, err_len, "--seq-state %s: cannot read it: %s", st_path,
			 strerror(errno));
		return rc;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		size_t len = strlen(line);

		ln++;
		if (len == 0 || line[len - 1] != '\n') {
			rc = -EINVAL;   /* cut short, or a line too long */
			break;
		}
		line[len - 1] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (!magic) {
			magic = strcmp(line, SEQ_MAGIC) == 0;
			rc = magic ? 0 : -EINVAL;
			continue;
		}
		rc = parse_line(line);
	}
	if (rc == 0 && ferror(f))
		rc = -EIO;
	if (rc == 0 && !magic && ln != 0)
		rc = -EINVAL;
	fclose(f);
	if (rc != 0)
		snprintf(err, err_len, "--seq-state %s:%d: %s (the file vecsec-gw writes; "
			 "restore the newest copy, never an older one)", st_path, ln,
			 rc == -ENOMEM ? "out of memory" : rc == -EIO ? "read error" :
			 "not a sequence-number state");
	return rc;
}

int
gw_seq_state_open(const char *path, uint64_t reserve, char *err, size_t err_len)
{
	char tmp[PATH_MAX];
	struct stat st;
	int rc;

	gw_seq_state_close();
	if (path == NULL)
		return 0;
	if (strlen(path) + 5 >= sizeof(tmp)) {
		snprintf(err, err_len, "--seq-state %s: path too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(st_dir, sizeof(st_dir), "%s", dirname(tmp));
	if (mkdir(st_dir, 0700) != 0 && errno != EEXIST) {
		rc = -errno;
		snprintf(err, err_len, "--seq-state %s: cannot make its folder %s: %s", path,
			 st_dir, strerror(errno));
		return rc;
	}
	if (stat(st_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, err_len, "--seq-state %s: %s is not a folder", path, st_dir);
		return -ENOTDIR;
	}
	st_path = strdup(path);
	if (st_path == NULL) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	st_reserve = reserve != 0 ? reserve : GW_SEQ_RESERVE_DEFAULT;
	rc = read_file(err, err_len);
	if (rc != 0)
		gw_seq_state_close();
	dirty = true;   /* start writes it once, whatever it holds: can it? */
	return rc;
}

void
gw_seq_state_close(void)
{
	free(st_path);
	st_path = NULL;
	free(ents);
	ents = NULL;
	nb_ents = cap_ents = 0;
	free(idx);
	idx = NULL;
	idx_mask = 0;
	free(slots);
	slots = NULL;
	nb_slots = 0;
	free(bound);
	bound = NULL;
	nb_bound = 0;
	__atomic_store_n(&gw.seq_gap, 0, __ATOMIC_RELAXED);
	{
		uint64_t *n = note;

		__atomic_store_n(&note, NULL, __ATOMIC_RELEASE);
		free(n);        /* the workers are stopped (or never started) by now */
	}
	note_words = 0;
	sweep = 0;
	dirty = failing = false;
}

static int
slots_grow(unsigned int slot)
{
	unsigned int n = RTE_MAX(gw.max_sa, slot + 1);
	struct seq_slot *s;
	uint32_t *bd;

	if (slot < nb_slots)
		return 0;
	if (note == NULL) {
		/* once: dp->sa[] has gw.max_sa slots for the whole run */
		unsigned int words = (n + 63) / 64;
		uint64_t *nt = calloc(words, sizeof(*nt));

		if (nt == NULL)
			return -ENOMEM;
		note_words = words;
		__atomic_store_n(&note, nt, __ATOMIC_RELEASE);
		__atomic_store_n(&gw.seq_gap, RTE_MAX(st_reserve / 2, (uint64_t)1),
				 __ATOMIC_RELEASE);
	}
	bd = realloc(bound, (size_t)n * sizeof(*bd));
	if (bd == NULL)
		return -ENOMEM;
	bound = bd;
	s = realloc(slots, (size_t)n * sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	for (unsigned int i = nb_slots; i < n; i++)
		s[i] = (struct seq_slot){ .ent = -1, .pos = -1 };
	slots = s;
	nb_slots = n;
	return 0;
}

static uint64_t
conf_first(const struct gw_sa_conf *c)
{
	return c->esn_init > 1 ? c->esn_init : 1;
}

uint64_t
gw_seq_state_bind(unsigned int slot, const struct gw_sa_conf *c, uint64_t last)
{
	struct gw_addr dst = { 0 };
	struct seq_slot *b;
	uint64_t first = conf_first(c);
	int e;

	if (!gw_seq_state_kept(c)) {
		/* the slot's former SA may have been kept: this one is not */
		gw_seq_state_unbind(slot);
		return first;
	}
	if (slots_grow(slot) != 0)
		goto nomem;
	b = &slots[slot];
	if (c->mode != GW_MODE_TRANS)
		dst = c->dst;
	e = ent_find(c->spi, c->mode, &dst, true);
	if (e < 0)
		goto nomem;
	/* a second try of the same SA (another cryptodev): the same numbers */
	if (b->ent == e)
		return b->first;
	if (ents[e].mark != 0 && ents[e].mark >= first)
		first = ents[e].mark == UINT64_MAX ? UINT64_MAX : ents[e].mark + 1;
	b->ent = e;
	if (b->pos < 0) {
		b->pos = (int32_t)nb_bound;
		bound[nb_bound++] = slot;
	}
	b->exhausted = first > last || ents[e].mark == UINT64_MAX;
	if (b->exhausted) {
		GW_LOG(WARNING, "SA out %u (line %d): every sequence number up to %" PRIu64
		       " was reserved before (--seq-state %s): none left, it expires", c->spi,
		       c->line, ents[e].mark, st_path);
		first = last;
	}
	b->first = first;
	if (!b->exhausted) {
		ents[e].mark = UINT64_MAX - first < st_reserve - 1 ? UINT64_MAX :
			first + st_reserve - 1;
		dirty = true;
	}
	return first;
nomem:
	/* nothing reserved: the SA sends nothing (seq_unreserved) rather than repeat */
	GW_LOG(ERR, "SA out %u: out of memory for its sequence-number state", c->spi);
	if (slots_grow(slot) == 0) {
		gw_seq_state_unbind(slot);
		slots[slot] = (struct seq_slot){ .ent = -1, .pos = -1, .exhausted = true,
						 .first = first };
		return first;
	}
	return last;
}

/* The numbers slot may use (from its first up to its mark); 0: none. */
static uint64_t
slot_allow(const struct seq_slot *b)
{
	uint64_t mark;

	if (b->exhausted || b->ent < 0)
		return 0;
	mark = ents[b->ent].mark;
	if (mark < b->first)
		return 0;
	return mark - b->first == UINT64_MAX ? UINT64_MAX : mark - b->first + 1;
}

/*
 * hard_pkts: the lowest of the SA's real limit, the numbers reserved here
 * and those the cluster partner acked (--cluster-sync, hasync.c).
 */
void
gw_seq_state_recap(struct gw_sa *s)
{
	uint64_t real = s->hard_real, allow = UINT64_MAX, ha, cap;

	if (real == 0)
		return;
	if (st_path != NULL && s->idx < nb_slots && slots[s->idx].ent >= 0 &&
	    !slots[s->idx].exhausted) {
		/* never 0 here (gw_seq_state_cap() handles that) */
		allow = slot_allow(&slots[s->idx]);
		allow = allow != 0 ? allow : UINT64_MAX;
	}
	/* --cluster-sync's (hasync.c sets it before it calls here) */
	ha = s->dir == GW_DIR_OUT && s->ha_gate ?
	     __atomic_load_n(&s->ha_out_allow, __ATOMIC_RELAXED) : UINT64_MAX;
	cap = RTE_MIN(real, RTE_MIN(allow, ha));
	s->cap_by_ha = ha < real && ha < allow;
	/*
	 * hard_pkts 0 is no limit: a cluster SA that may send nothing gave up
	 * its first number (hasync.c, gw_hasync_sa_ready), so 1 holds it back
	 */
	__atomic_store_n(&s->hard_pkts, cap != 0 ? cap : 1, __ATOMIC_RELAXED);
}

static void
cap_set(struct gw_sa *s, const struct seq_slot *b)
{
	(void)b;
	gw_seq_state_recap(s);
}

void
gw_seq_state_cap(struct gw_sa *s)
{
	const struct seq_slot *b;

	s->hard_real = 0;
	if (st_path == NULL || s->dir != GW_DIR_OUT || s->idx >= nb_slots)
		return;
	b = &slots[s->idx];
	if (b->ent < 0 && !b->exhausted)
		return;
	s->hard_real = s->hard_pkts;    /* the SA's own limit (never 0 outbound: seq_limit) */
	if (slot_allow(b) == 0) {
		/* nothing may be sent: every packet is past the limit */
		s->hard_pkts = s->hard_real;
		s->used_pkts = s->hard_real;
		return;
	}
	cap_set(s, b);
}

void
gw_seq_state_unbind(unsigned int slot)
{
	int32_t pos;

	if (slot >= nb_slots)
		return;
	pos = slots[slot].pos;
	if (pos >= 0) {
		/* the last one takes its place */
		uint32_t moved = bound[--nb_bound];

		bound[pos] = moved;
		slots[moved].pos = pos;
	}
	slots[slot] = (struct seq_slot){ .ent = -1, .pos = -1 };
}

uint64_t
gw_seq_state_first(unsigned int slot, const struct gw_sa_conf *c)
{
	if (slot < nb_slots && (slots[slot].ent >= 0 || slots[slot].exhausted))
		return slots[slot].first;
	return conf_first(c);
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n != 0) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Write every entry to the file, durably; 0 or -errno (err). */
static int
write_file(char *err, size_t err_len)
{
	char tmp[PATH_MAX], line[128], dst[INET6_ADDRSTRLEN];
	size_t cap = 256 + (size_t)nb_ents * 96, len = 0;
	char *buf = malloc(cap);
	const char *what = "write", *which = st_path;
	int fd = -1, dfd, rc = 0;

	if (buf == NULL) {
		snprintf(err, err_len, "--seq-state %s: out of memory", st_path);
		return -ENOMEM;
	}
	len = (size_t)snprintf(buf, cap, "# vecsec-gw sequence-number marks (--seq-state): "
		"written by vecsec-gw, no keys in it.\n# Never restore an older copy: its SAs "
		"would send numbers and IVs again.\n" SEQ_MAGIC "\n");
	for (unsigned int e = 0; e < nb_ents; e++) {
		const struct seq_ent *x = &ents[e];
		int n;

		if (x->mode == GW_MODE_TRANS)
			snprintf(dst, sizeof(dst), "-");
		else
			inet_ntop(x->mode == GW_MODE_TUN6 ? AF_INET6 : AF_INET, x->dst.b, dst,
				  sizeof(dst));
		n = snprintf(line, sizeof(line), "out %u %s %s %" PRIu64 "\n", x->spi,
			     x->mode == GW_MODE_TUN4 ? "ipv4" : x->mode == GW_MODE_TUN6 ? "ipv6" :
			     "transport", dst, x->mark);
		memcpy(buf + len, line, (size_t)n);     /* at most 96 bytes a line */
		len += (size_t)n;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", st_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = -errno;
		what = "create";
		which = tmp;
		goto out;
	}
	rc = write_all(fd, buf, len);
	if (rc == 0 && fsync(fd) != 0) {
		rc = -errno;
		what = "fsync";
	}
	if (close(fd) != 0 && rc == 0) {
		rc = -errno;
		what = "close";
	}
	if (rc == 0 && rename(tmp, st_path) != 0) {
		rc = -errno;
		what = "rename";
	}
	if (rc != 0) {
		(void)unlink(tmp);
		goto out;
	}
	/* the rename itself is durable once the folder is */
	dfd = open(st_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) != 0) {
		rc = -errno;
		what = "fsync the folder of";
	}
	if (dfd >= 0)
		close(dfd);
out:
	free(buf);
	if (rc != 0)
		snprintf(err, err_len, "--seq-state %s: cannot %s %s: %s", st_path, what, which,
			 strerror(-rc));
	return rc;
}

/* After a write: every kept SA may use its numbers up to its (now durable) mark. */
static void
caps_raise(void)
{
	for (unsigned int k = 0; k < nb_bound; k++) {
		unsigned int i = bound[k];
		struct gw_sa *s = &gw.sa[i];

		if (slots[i].exhausted || s->hard_real == 0)
			continue;
		cap_set(s, &slots[i]);
	}
}

bool
gw_seq_state_pending(void)
{
	return st_path != NULL && dirty;
}

int
gw_seq_state_commit(char *err, size_t err_len)
{
	int rc;

	if (st_path == NULL)
		return 0;
	rc = write_file(err, err_len);
	if (rc != 0)
		return rc;
	dirty = false;
	caps_raise();
	return 0;
}

void
gw_seq_state_note(unsigned int slot)
{
	uint64_t *nt = __atomic_load_n(&note, __ATOMIC_ACQUIRE);
	uint64_t bit = 1ull << (slot % 64);

	/* a slot past the bits (none: max_sa bits) waits for the safety net */
	if (nt == NULL || slot / 64 >= note_words)
		return;
	/* test first: the line stays shared while the SA is noted */
	if ((__atomic_load_n(&nt[slot / 64], __ATOMIC_RELAXED) & bit) == 0)
		(void)__atomic_fetch_or(&nt[slot / 64], bit, __ATOMIC_RELEASE);
}

/* Slot i's SA within R/2 of its mark: R more (in memory; the caller writes). */
static void
slot_renew(unsigned int i)
{
	const struct gw_sa *s;
	struct seq_slot *b;
	struct seq_ent *e;
	uint64_t next, mark;

	if (i >= nb_slots)
		return;
	s = &gw.sa[i];
	b = &slots[i];
	if (b->ent < 0 || b->exhausted || s->hard_real == 0 ||
	    !__atomic_load_n(&s->active, __ATOMIC_ACQUIRE))
		return;
	e = &ents[b->ent];
	/* the next number it could use: used_pkts counts every one given out */
	next = b->first + __atomic_load_n(&s->used_pkts, __ATOMIC_RELAXED);
	if (next < b->first || e->mark == UINT64_MAX)
		return;
	if (e->mark >= next && e->mark - next >= st_reserve / 2)
		return;
	mark = RTE_MAX(e->mark, next - 1);
	e->mark = UINT64_MAX - mark < st_reserve ? UINT64_MAX : mark + st_reserve;
	dirty = true;
}

/* The SAs the workers noted since the last tick (their bits cleared). */
static void
notes_take(void)
{
	for (unsigned int w = 0; w < note_words; w++) {
		uint64_t m;

		if (__atomic_load_n(&note[w], __ATOMIC_RELAXED) == 0)
			continue;
		m = __atomic_exchange_n(&note[w], 0, __ATOMIC_ACQ_REL);
		while (m != 0) {
			slot_renew(w * 64 + (unsigned int)__builtin_ctzll(m));
			m &= m - 1;
		}
	}
}

void
gw_seq_state_poll(void)
{
	char err[PATH_MAX + 128];
	int rc;

	if (st_path == NULL || (__atomic_load_n(&nb_bound, __ATOMIC_RELAXED) == 0 && !dirty))
		return;
	gw_cp_lock();
	if (note != NULL)
		notes_take();
	/* the safety net: SEQ_SWEEP kept SAs in turn (the header comment says why) */
	for (unsigned int k = 0; k < RTE_MIN(SEQ_SWEEP, nb_bound); k++) {
		if (sweep >= nb_bound)
			sweep = 0;
		slot_renew(bound[sweep++]);
	}
	if (dirty) {
		rc = gw_seq_state_commit(err, sizeof(err));
		if (rc != 0 && !failing)
			GW_LOG(ERR, "%s: packets past the sequence numbers reserved are dropped "
			       "(seq_unreserved) until it can be written", err);
		else if (rc == 0 && failing)
			GW_LOG(NOTICE, "--seq-state %s: written again", st_path);
		failing = rc != 0;
	}
	gw_cp_unlock();
}
