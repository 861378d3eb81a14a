/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel-vecsec: kernel_ipsec_t on vecsec-gw's control socket (the
 * requests' syntax, answers and versions: docs/control-protocol.md; the
 * plugin needs protocol 1.5).
 *
 * SAs: get_spi reserves an inbound SPI in the gateway (`spi alloc`, a
 * larval SA until add_sa or del_sa), add_sa sends an
 * `sa` rule (algorithm table below, keys in hex; unsupported algorithms
 * are refused here with a log line naming them), del_sa `del sa`, query_sa
 * `query sa`.
 * Byte and packet lifetimes are enforced by the gateway (its expire events
 * come back through a subscription and go to charon->kernel->expire); time
 * lifetimes are jobs on lib->scheduler here (soft, then hard).
 *
 * Policies: charon installs the policy of a new SA before it removes the
 * old SA's (rekeying), and several CHILD_SAs may share one selector, so a
 * policy is an entry per (direction, selectors) with a list of users; the
 * gateway holds one rule per entry, protecting with the newest user's SA
 * (switched by `replace sp`, make-before-break). FWD policies are only
 * counted: the gateway checks decrypted traffic once, against the IN rule.
 *
 * Everything the plugin installs carries `owner <charon.plugins.
 * kernel-vecsec.owner>`, its IKE and NAT-T ports (`bypass udp`, `natt udp`)
 * too: at start it flushes what an earlier charon left; at exit it deletes
 * its ports.
 * A watcher thread keeps the event subscription; when the gateway's boot id
 * changes (it restarted and lost every SA) the CHILD_SAs are hard-expired,
 * and charon re-creates them.
 *
 * With strongSwan's ha plugin configured (docs/ha.md): the watcher also
 * makes the gateway's active segments the plugin's (read from its log
 * line), and a restarted gateway gets the standby SAs of the plugin's
 * passive CHILD_SAs installed again (charon ignores their expiry). That
 * needs protocol 1.8 (`segments`, `segment +N|-N`) and a gateway with
 * --cluster; without them it is logged once and the rest works as before.
 *
 * Copyright (c) 2026, the vecsec authors
 */
#include "kernel_vecsec_ipsec.h"
#include "kernel_vecsec_ctl.h"
/* the ha plugin's segment hash, the gateway's own definition (plain C) */
#include "../../apps/vecsec-gw/ha_seg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <daemon.h>
#include <bus/listeners/logger.h>
#include <collections/hashtable.h>
#include <collections/linked_list.h>
#include <processing/jobs/callback_job.h>
#include <threading/mutex.h>
#include <threading/thread.h>

/* vecsec-gw's default socket (apps/vecsec-gw/ctrl_path.h), EAL's default file prefix */
#define DEFAULT_SOCKET "/run/vecsec-gw/ctrl.sock"
#define DEFAULT_OWNER "charon"
#define DEFAULT_TIMEOUT_MS 5000
/* the gateway's replay window limit (vecsec-gw -w, replay_win: GW_MAX_WINDOW) */
#define GW_MAX_WINDOW 8128
/* gateway rule priorities: higher wins; kernel-netlink's value is subtracted */
#define GW_PRIO_TOP 1000000
#define PRIO_BASE 200000
/* without ESN, a sender must rekey before the 32-bit sequence number wraps */
#define SEQ_HARD_LIMIT 0xfffffffeull
#define SEQ_SOFT_LIMIT 0xff000000ull

typedef struct private_kernel_vecsec_ipsec_t private_kernel_vecsec_ipsec_t;

struct private_kernel_vecsec_ipsec_t {
	kernel_vecsec_ipsec_t public;
	kernel_vecsec_ctl_t *ctl;
	/* the tables, and every request that changes the gateway */
	mutex_t *mutex;
	hashtable_t *sas;               /* sa_entry_t by spi + dst */
	hashtable_t *policies;          /* policy_entry_t by dir + selectors */
	char *owner;
	uint32_t spi_min, spi_max;
	/* gateway state: boot id of the instance the tables describe, 0 none yet */
	uint64_t boot;
	bool ready;                     /* flushed and subscribed: requests may go */
	uint32_t gen;                   /* SA generations (expiry jobs check them) */
	linked_list_t *bypass_ports;    /* uintptr_t: re-registered after a restart */
	linked_list_t *natt_ports;
	thread_t *watcher;
	int watch_fd;                   /* the constructor's subscription, for the watcher */
	volatile bool stop;
	/*
	 * strongSwan's ha plugin (docs/ha.md): its segment changes, read from
	 * its log line by ha_logger, handed to the watcher thread (wake), which
	 * makes the gateway's active segments match (ha_sync)
	 */
	bool ha;                        /* the ha plugin is configured */
	logger_t ha_logger;
	mutex_t *ha_mutex;              /* ha_want, ha_dirty */
	uint16_t ha_want;               /* charon's active segments, bit N-1 = segment N */
	u_int ha_count;                 /* the plugin's segment_count */
	bool ha_dirty;                  /* ha_want not yet sent to the gateway */
	bool ha_off_logged;             /* "no --cluster" said once */
	bool ha_fail_logged;            /* a failing sync said once until it works */
	int wake[2];                    /* pipe: the logger wakes the watcher */
	char *ha_fifo;                  /* the plugin's FIFO (+N/-N), for a handoff */
	/*
	 * the other node's gateway as this node's gateway last saw it over
	 * --cluster-sync (`segments`' "sync partner"): 1 up (or syncing), 0
	 * down, -1 unknown (no --cluster-sync, never asked); asked every
	 * HA_PARTNER_POLL_MS by the watcher (ha_partner_ms: when last)
	 */
	int ha_partner;
	uint64_t ha_partner_ms;
	/*
	 * and the sync's own state: this gateway's epoch, the partner's, its
	 * ends ("ADDR:PORT", "[ADDR6]:PORT"; empty: not known), for the GONE
	 * message when the gateway dies (ha_send_gone)
	 */
	uint32_t ha_epoch, ha_peer_epoch;
	char ha_local[64], ha_remote[64];
};

typedef struct {
	uint32_t spi;                   /* host order */
	host_t *src, *dst;
	bool inbound;
	bool installed;                 /* an SA in the gateway, else a reserved SPI */
	uint32_t gen;
	bool soft_seen, hard_seen;      /* expire events passed on */
	char *req;                      /* with the ha plugin: the `sa` request (keys!), for
					 * installing a standby copy again after a restart */
} sa_entry_t;

typedef struct {
	uint32_t reqid;
	uint32_t spi;                   /* host order; 0 for pass/drop */
	policy_type_t type;
} policy_user_t;

typedef struct {
	policy_dir_t dir;
	traffic_selector_t *src_ts, *dst_ts;
	linked_list_t *users;           /* policy_user_t, oldest first */
	char *sel_dir;                  /* "sp ipv4 out esp": the rule before its action */
	char *sel;                      /* "pri P src S dst D ... owner O": after it */
	char *rule;                     /* the rule as the gateway has it, NULL if none */
	policy_type_t type;             /* of the installed rule */
	uint32_t spi;                   /* its protect SPI */
} policy_entry_t;

/* ---- tables ---------------------------------------------------------------- */

static u_int
sa_hash(const void *key)
{
	const sa_entry_t *e = key;

	return chunk_hash_inc(e->dst->get_address(e->dst), chunk_hash(chunk_from_thing(e->spi)));
}

static bool
sa_equals(const void *a, const void *b)
{
	const sa_entry_t *x = a, *y = b;

	return x->spi == y->spi && x->dst->ip_equals(x->dst, y->dst);
}

static void
sa_req_free(sa_entry_t *e)
{
	if (e->req) {
		memwipe(e->req, strlen(e->req));
		free(e->req);
		e->req = NULL;
	}
}

static void
sa_entry_destroy(sa_entry_t *e)
{
	sa_req_free(e);
	DESTROY_IF(e->src);
	DESTROY_IF(e->dst);
	free(e);
}

static sa_entry_t *
sa_find(private_kernel_vecsec_ipsec_t *this, uint32_t spi_n, host_t *dst)
{
	sa_entry_t key = { .spi = ntohl(spi_n), .dst = dst };

	return this->sas->get(this->sas, &key);
}

static u_int
policy_hash(const void *key)
{
	const policy_entry_t *e = key;
	u_int h = chunk_hash(chunk_from_thing(e->dir));

	h = e->src_ts->hash(e->src_ts, h);
	return e->dst_ts->hash(e->dst_ts, h);
}

static bool
policy_equals(const void *a, const void *b)
{
	const policy_entry_t *x = a, *y = b;

	return x->dir == y->dir && x->src_ts->equals(x->src_ts, y->src_ts) &&
		x->dst_ts->equals(x->dst_ts, y->dst_ts);
}

static void
policy_entry_destroy(policy_entry_t *e)
{
	e->src_ts->destroy(e->src_ts);
	e->dst_ts->destroy(e->dst_ts);
	e->users->destroy_function(e->users, free);
	free(e->sel_dir);
	free(e->sel);
	free(e->rule);
	free(e);
}

/* ---- requests -------------------------------------------------------------- */

/* Not ready (never reached, or between a restart and its resync): say so, FAILED. */
static bool
check_ready(private_kernel_vecsec_ipsec_t *this, char *what)
{
	if (this->ready)
		return TRUE;
	DBG1(DBG_KNL, "kernel-vecsec: %s failed: vecsec-gw is not connected (socket %s); "
	     "is the gateway running with --ctrl?", what, this->ctl->get_path(this->ctl));
	return FALSE;
}

/* A request whose answer is only OK or ERR; NOT_FOUND for ERR "no ...". */
static status_t
simple(private_kernel_vecsec_ipsec_t *this, char **err, char *req)
{
	kernel_vecsec_answer_t a;
	status_t s = this->ctl->request(this->ctl, &a, "%s", req);

	if (err)
		*err = strdup(a.err);
	kernel_vecsec_answer_free(&a);
	return s;
}

static bool
addr_str(host_t *h, char *buf, size_t len)
{
	chunk_t a = h->get_address(h);

	return inet_ntop(h->get_family(h), a.ptr, buf, (socklen_t)len) != NULL;
}

/* ---- algorithms ------------------------------------------------------------- */

/* charon's ESP algorithms and the gateway's keywords; key lengths with salt */
static const struct {
	uint16_t alg;
	size_t key_len;
	char *gw;
	bool aead;
} enc_map[] = {
	{ ENCR_CHACHA20_POLY1305, 36, "chacha20-poly1305", TRUE },
	{ ENCR_AES_GCM_ICV16, 20, "aes-128-gcm", TRUE },
	{ ENCR_AES_GCM_ICV16, 28, "aes-192-gcm", TRUE },
	{ ENCR_AES_GCM_ICV16, 36, "aes-256-gcm", TRUE },
	{ KERNEL_VECSEC_ENCR_ARIA_GCM16, 20, "aria-128-gcm", TRUE },
	{ KERNEL_VECSEC_ENCR_ARIA_GCM16, 28, "aria-192-gcm", TRUE },
	{ KERNEL_VECSEC_ENCR_ARIA_GCM16, 36, "aria-256-gcm", TRUE },
	{ ENCR_AES_CBC, 16, "aes-128-cbc", FALSE },
	{ ENCR_AES_CBC, 24, "aes-192-cbc", FALSE },
	{ ENCR_AES_CBC, 32, "aes-256-cbc", FALSE },
	{ ENCR_AES_CTR, 20, "aes-128-ctr", FALSE },
	{ ENCR_AES_CTR, 28, "aes-192-ctr", FALSE },
	{ ENCR_AES_CTR, 36, "aes-256-ctr", FALSE },
	{ ENCR_NULL, 0, "null", FALSE },
};

static const struct {
	uint16_t alg;
	size_t key_len;
	char *gw;
} int_map[] = {
	{ AUTH_HMAC_SHA1_96, 20, "sha1-hmac" },
	{ AUTH_HMAC_SHA2_256_128, 32, "sha256-hmac" },
	{ AUTH_HMAC_SHA2_384_192, 48, "sha384-hmac" },
	{ AUTH_HMAC_SHA2_512_256, 64, "sha512-hmac" },
	{ AUTH_AES_XCBC_96, 16, "aes-xcbc-mac-96" },
};

/* key bytes as the gateway reads them: hex pairs joined by ':' */
static bool
hex_key(char *out, size_t out_len, chunk_t key)
{
	static const char hx[] = "0123456789abcdef";
	size_t o = 0;

	if (key.len == 0 || key.len * 3 > out_len)
		return FALSE;
	for (size_t i = 0; i < key.len; i++) {
		out[o++] = hx[key.ptr[i] >> 4];
		out[o++] = hx[key.ptr[i] & 0xf];
		out[o++] = i + 1 < key.len ? ':' : '\0';
	}
	return TRUE;
}

/* The algorithm words of an sa rule, or FALSE with the reason logged. */
static bool
algo_words(kernel_ipsec_add_sa_t *data, char *out, size_t len)
{
	char k1[3 * 64 + 1], k2[3 * 64 + 1];
	int e = -1, a = -1, n;
	bool ok = FALSE;

	for (u_int i = 0; i < countof(enc_map); i++)
		if (enc_map[i].alg == data->enc_alg && enc_map[i].key_len == data->enc_key.len)
			e = (int)i;
	if (e < 0) {
		DBG1(DBG_KNL, "kernel-vecsec: ESP encryption %N with a %zu-byte key is not "
		     "offered by vecsec-gw (it has ChaCha20-Poly1305, AES-GCM-16, AES-CBC, "
		     "AES-CTR, NULL, ARIA-GCM-16); SA refused", encryption_algorithm_names,
		     data->enc_alg, data->enc_key.len);
		return FALSE;
	}
	if (enc_map[e].aead) {
		if (data->int_alg != AUTH_UNDEFINED) {
			DBG1(DBG_KNL, "kernel-vecsec: %N is an AEAD, integrity %N makes no "
			     "sense; SA refused", encryption_algorithm_names, data->enc_alg,
			     integrity_algorithm_names, data->int_alg);
			return FALSE;
		}
		if (!hex_key(k1, sizeof(k1), data->enc_key))
			return FALSE;
		n = snprintf(out, len, "aead_algo %s aead_key %s", enc_map[e].gw, k1);
		ok = n > 0 && (size_t)n < len;
		goto out;
	}
	for (u_int i = 0; i < countof(int_map); i++)
		if (int_map[i].alg == data->int_alg && int_map[i].key_len == data->int_key.len)
			a = (int)i;
	if (a < 0) {
		DBG1(DBG_KNL, "kernel-vecsec: ESP integrity %N with a %zu-byte key is not "
		     "offered by vecsec-gw (it has HMAC-SHA1-96, HMAC-SHA2-256/384/512, "
		     "AES-XCBC-96); SA with %N refused", integrity_algorithm_names,
		     data->int_alg, data->int_key.len, encryption_algorithm_names,
		     data->enc_alg);
		return FALSE;
	}
	if (!hex_key(k2, sizeof(k2), data->int_key))
		return FALSE;
	if (enc_map[e].key_len == 0)
		n = snprintf(out, len, "cipher_algo null auth_algo %s auth_key %s", int_map[a].gw,
			     k2);
	else if (hex_key(k1, sizeof(k1), data->enc_key))
		n = snprintf(out, len, "cipher_algo %s cipher_key %s auth_algo %s auth_key %s",
			     enc_map[e].gw, k1, int_map[a].gw, k2);
	else
		n = -1;
	ok = n > 0 && (size_t)n < len;
out:
	memwipe(k1, sizeof(k1));
	memwipe(k2, sizeof(k2));
	return ok;
}

/* Family of the traffic selectors (inner packets): 4, 6, or 0 if mixed or none. */
static int
ts_family(linked_list_t *a, linked_list_t *b)
{
	enumerator_t *en;
	traffic_selector_t *ts;
	int fam = 0;

	for (int k = 0; k < 2; k++) {
		en = (k ? b : a)->create_enumerator(k ? b : a);
		while (en->enumerate(en, &ts)) {
			int f = ts->get_type(ts) == TS_IPV4_ADDR_RANGE ? 4 : 6;

			if (fam != 0 && fam != f)
				fam = -1;
			else if (fam == 0)
				fam = f;
		}
		en->destroy(en);
	}
	return fam < 0 ? 0 : fam;
}

/* ---- time lifetimes ------------------------------------------------------------ */

typedef struct {
	private_kernel_vecsec_ipsec_t *this;
	uint32_t spi;                   /* host order */
	host_t *dst;
	uint32_t gen;
	bool hard;                      /* the next firing is the hard expire */
	uint32_t hard_in;               /* seconds from the soft to the hard expire */
} expire_job_t;

static void
expire_job_destroy(expire_job_t *d)
{
	d->dst->destroy(d->dst);
	free(d);
}

static job_requeue_t
expire_job(expire_job_t *d)
{
	private_kernel_vecsec_ipsec_t *this = d->this;
	sa_entry_t key = { .spi = d->spi, .dst = d->dst }, *e;
	bool live;

	this->mutex->lock(this->mutex);
	e = this->sas->get(this->sas, &key);
	live = e != NULL && e->installed && e->gen == d->gen;
	if (live) {
		if (d->hard)
			e->hard_seen = TRUE;
		else
			e->soft_seen = TRUE;
	}
	this->mutex->unlock(this->mutex);
	if (!live)
		return JOB_REQUEUE_NONE;
	DBG2(DBG_KNL, "kernel-vecsec: %s time expire of SA 0x%08x", d->hard ? "hard" : "soft",
	     d->spi);
	charon->kernel->expire(charon->kernel, IPPROTO_ESP, htonl(d->spi), d->dst, d->hard);
	if (d->hard || d->hard_in == 0)
		return JOB_REQUEUE_NONE;
	d->hard = TRUE;
	return JOB_RESCHEDULE(d->hard_in);
}

/* kernel-vpp's scheme: soft at rekey, hard life - rekey later; hard only without rekey */
static void
schedule_expire(private_kernel_vecsec_ipsec_t *this, sa_entry_t *e, lifetime_cfg_t *lt)
{
	expire_job_t *d;
	uint64_t rekey = lt->time.rekey, life = lt->time.life;

	if (rekey == 0 && life == 0)
		return;
	INIT(d,
		.this = this,
		.spi = e->spi,
		.dst = e->dst->clone(e->dst),
		.gen = e->gen,
	);
	if (rekey == 0 || (life != 0 && life <= rekey)) {
		d->hard = TRUE;
		rekey = life;
	} else if (life != 0) {
		d->hard_in = (uint32_t)(life - rekey);
	}
	lib->scheduler->schedule_job(lib->scheduler,
		(job_t *)callback_job_create((callback_job_cb_t)expire_job, d,
					     (callback_job_cleanup_t)expire_job_destroy, NULL),
		(uint32_t)rekey);
}

/* ---- kernel_ipsec_t ------------------------------------------------------------- */

METHOD(kernel_ipsec_t, get_features, kernel_feature_t,
	private_kernel_vecsec_ipsec_t *this)
{
	/* TFC-padded ESPv3 is accepted (the inner IP length trims it); SPIs on policies */
	return KERNEL_ESP_V3_TFC | KERNEL_POLICY_SPI;
}

METHOD(kernel_ipsec_t, get_spi, status_t,
	private_kernel_vecsec_ipsec_t *this, host_t *src, host_t *dst, uint8_t protocol,
	uint32_t *spi)
{
	kernel_vecsec_answer_t a;
	uint64_t v;
	status_t s;
	sa_entry_t *e;

	if (protocol != IPPROTO_ESP) {
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw does ESP only, not protocol %u", protocol);
		return NOT_SUPPORTED;
	}
	this->mutex->lock(this->mutex);
	if (!check_ready(this, "allocating an SPI")) {
		this->mutex->unlock(this->mutex);
		return FAILED;
	}
	s = this->ctl->request(this->ctl, &a, "spi alloc %u %u owner %s", this->spi_min,
			       this->spi_max, this->owner);
	/* "spi N": the line's first word is its key too */
	if (s == SUCCESS && (!kernel_vecsec_answer_u64(&a, "spi", "spi", &v) ||
			     v < this->spi_min || v > this->spi_max)) {
		DBG1(DBG_KNL, "kernel-vecsec: malformed answer to 'spi alloc': '%s'", a.lines);
		s = FAILED;
	}
	if (s != SUCCESS) {
		if (a.err[0])
			DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw allocated no SPI: %s", a.err);
		kernel_vecsec_answer_free(&a);
		this->mutex->unlock(this->mutex);
		return FAILED;
	}
	kernel_vecsec_answer_free(&a);
	INIT(e,
		.spi = (uint32_t)v,
		.src = src->clone(src),
		.dst = dst->clone(dst),
		.inbound = TRUE,
	);
	e = this->sas->put(this->sas, e, e);
	if (e)          /* the gateway never hands out a live SPI: a stale entry */
		sa_entry_destroy(e);
	this->mutex->unlock(this->mutex);
	*spi = htonl((uint32_t)v);
	DBG2(DBG_KNL, "kernel-vecsec: reserved SPI 0x%08x", (uint32_t)v);
	return SUCCESS;
}

METHOD(kernel_ipsec_t, get_cpi, status_t,
	private_kernel_vecsec_ipsec_t *this, host_t *src, host_t *dst, uint16_t *cpi)
{
	return NOT_SUPPORTED;           /* no IPComp in vecsec-gw */
}

/* byte/packet lifetime words (soft < hard, as the gateway requires) */
static int
life_words(char *out, size_t len, char *what, uint64_t soft, uint64_t hard)
{
	int n = 0;

	if (hard != 0 && soft >= hard)
		soft = 0;
	if (soft != 0)
		n = snprintf(out, len, " lifetime-soft-%s %" PRIu64, what, soft);
	if (hard != 0 && n >= 0 && (size_t)n < len)
		n += snprintf(out + n, len - (size_t)n, " lifetime-hard-%s %" PRIu64, what, hard);
	return n;
}

METHOD(kernel_ipsec_t, add_sa, status_t,
	private_kernel_vecsec_ipsec_t *this, kernel_ipsec_sa_id_t *id,
	kernel_ipsec_add_sa_t *data)
{
	char algo[512], req[1024], src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], life[256];
	char mode[128], natt[32] = "", *keep = NULL;
	uint32_t spi = ntohl(id->spi);
	lifetime_cfg_t *lt = data->lifetime;
	uint64_t pkts_soft = lt->packets.rekey, pkts_hard = lt->packets.life;
	int fam, n;
	char *err = NULL;
	status_t s;
	sa_entry_t *e, key = { .spi = spi, .dst = id->dst };

	if (id->proto != IPPROTO_ESP) {
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw does ESP only (SA 0x%08x)", spi);
		return NOT_SUPPORTED;
	}
	if (data->ipcomp != IPCOMP_NONE) {
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw has no IPComp (SA 0x%08x)", spi);
		return NOT_SUPPORTED;
	}
	if (data->mode != MODE_TUNNEL && data->mode != MODE_TRANSPORT) {
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw does tunnel and transport mode, not %N "
		     "(SA 0x%08x)", ipsec_mode_names, data->mode, spi);
		return NOT_SUPPORTED;
	}
	fam = ts_family(data->src_ts, data->dst_ts);
	if (fam == 0) {
		DBG1(DBG_KNL, "kernel-vecsec: SA 0x%08x would carry IPv4 and IPv6; a vecsec-gw SA "
		     "carries one family (use one CHILD_SA per family)", spi);
		return NOT_SUPPORTED;
	}
	if (id->src->get_family(id->src) != id->dst->get_family(id->dst) ||
			!addr_str(id->src, src, sizeof(src)) || !addr_str(id->dst, dst, sizeof(dst)))
		return FAILED;
	if (id->mark.value || data->mark.value || id->if_id || data->label)
		DBG1(DBG_KNL, "kernel-vecsec: marks, interface IDs and labels are not supported "
		     "by vecsec-gw; ignored on SA 0x%08x", spi);
	if (data->tfc)
		DBG2(DBG_KNL, "kernel-vecsec: no TFC padding on outbound SA 0x%08x", spi);
	if (data->replay_window > GW_MAX_WINDOW) {
		DBG1(DBG_KNL, "kernel-vecsec: replay window %u above vecsec-gw's %u; SA 0x%08x "
		     "refused", data->replay_window, GW_MAX_WINDOW, spi);
		return NOT_SUPPORTED;
	}
	if (!algo_words(data, algo, sizeof(algo)))
		return NOT_SUPPORTED;
	if (data->mode == MODE_TUNNEL)
		snprintf(mode, sizeof(mode), "mode ipv%c-tunnel src %s dst %s",
			 id->src->get_family(id->src) == AF_INET ? '4' : '6', src, dst);
	else
		snprintf(mode, sizeof(mode), "mode transport");
	if (data->encap)
		snprintf(natt, sizeof(natt), " udp-ports %u:%u", id->src->get_port(id->src),
			 id->dst->get_port(id->dst));
	/* without ESN the 32-bit sequence number must not wrap: expire before (RFC 4303 3.3.3) */
	if (!data->esn) {
		if (pkts_hard == 0 || pkts_hard > SEQ_HARD_LIMIT)
			pkts_hard = SEQ_HARD_LIMIT;
		if (pkts_soft == 0 || pkts_soft > SEQ_SOFT_LIMIT)
			pkts_soft = SEQ_SOFT_LIMIT;
	}
	n = life_words(life, sizeof(life), "bytes", lt->bytes.rekey, lt->bytes.life);
	life_words(life + n, sizeof(life) - (size_t)n, "packets", pkts_soft, pkts_hard);
	n = snprintf(req, sizeof(req), "sa %s %u %s %s%s%s replay_win %u%s inner ipv%d owner %s",
		     data->inbound ? "in" : "out", spi, algo, mode, natt,
		     data->esn ? " esn 0" : "", data->replay_window, life, fam, this->owner);
	memwipe(algo, sizeof(algo));
	if (n <= 0 || (size_t)n >= sizeof(req)) {
		memwipe(req, sizeof(req));
		return FAILED;
	}

	this->mutex->lock(this->mutex);
	if (!check_ready(this, "installing an SA")) {
		this->mutex->unlock(this->mutex);
		memwipe(req, sizeof(req));
		return FAILED;
	}
	s = simple(this, &err, req);
	if (s == SUCCESS && this->ha)
		keep = strdup(req);
	memwipe(req, sizeof(req));
	if (s != SUCCESS) {
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw refused %s SA 0x%08x (%N): %s",
		     data->inbound ? "inbound" : "outbound", spi, encryption_algorithm_names,
		     data->enc_alg, err);
		free(err);
		this->mutex->unlock(this->mutex);
		return FAILED;
	}
	free(err);
	e = this->sas->get(this->sas, &key);
	if (!e) {
		INIT(e,
			.spi = spi,
			.dst = id->dst->clone(id->dst),
		);
		this->sas->put(this->sas, e, e);
	}
	DESTROY_IF(e->src);
	e->src = id->src->clone(id->src);
	e->inbound = data->inbound;
	e->installed = TRUE;
	e->gen = ++this->gen;
	e->soft_seen = e->hard_seen = FALSE;
	sa_req_free(e);
	e->req = keep;
	schedule_expire(this, e, lt);
	this->mutex->unlock(this->mutex);
	DBG2(DBG_KNL, "kernel-vecsec: added %s SA 0x%08x (%N) %s -> %s",
	     data->inbound ? "inbound" : "outbound", spi, encryption_algorithm_names,
	     data->enc_alg, src, dst);
	return SUCCESS;
}

METHOD(kernel_ipsec_t, update_sa, status_t,
	private_kernel_vecsec_ipsec_t *this, kernel_ipsec_sa_id_t *id,
	kernel_ipsec_update_sa_t *data)
{
	/* no address updates in vecsec-gw: charon rekeys the CHILD_SA instead (MOBIKE) */
	return NOT_SUPPORTED;
}

METHOD(kernel_ipsec_t, query_sa, status_t,
	private_kernel_vecsec_ipsec_t *this, kernel_ipsec_sa_id_t *id,
	kernel_ipsec_query_sa_t *data, uint64_t *bytes, uint64_t *packets, time_t *time)
{
	kernel_vecsec_answer_t a;
	uint64_t b = 0, p = 0, t = 0;
	sa_entry_t *e;
	status_t s;
	bool in;
	uint32_t spi;

	this->mutex->lock(this->mutex);
	e = sa_find(this, id->spi, id->dst);
	if (!e || !e->installed || !this->ready) {
		this->mutex->unlock(this->mutex);
		return NOT_FOUND;
	}
	in = e->inbound;
	spi = e->spi;
	s = this->ctl->request(this->ctl, &a, in ? "query sa in %u" : "query sa out %u", spi);
	this->mutex->unlock(this->mutex);
	if (s == SUCCESS && (!kernel_vecsec_answer_u64(&a, "sa", "packets", &p) ||
			     !kernel_vecsec_answer_u64(&a, "sa", "bytes", &b) ||
			     !kernel_vecsec_answer_u64(&a, "sa", "last-use", &t))) {
		DBG1(DBG_KNL, "kernel-vecsec: malformed answer to 'query sa': '%s'", a.lines);
		s = FAILED;
	}
	kernel_vecsec_answer_free(&a);
	if (s != SUCCESS)
		return s;
	if (bytes)
		*bytes = b;
	if (packets)
		*packets = p;
	if (time)
		*time = (time_t)t;
	return SUCCESS;
}

METHOD(kernel_ipsec_t, del_sa, status_t,
	private_kernel_vecsec_ipsec_t *this, kernel_ipsec_sa_id_t *id,
	kernel_ipsec_del_sa_t *data)
{
	sa_entry_t key = { .spi = ntohl(id->spi), .dst = id->dst }, *e;
	char req[48];
	status_t s = SUCCESS;

	this->mutex->lock(this->mutex);
	e = this->sas->remove(this->sas, &key);
	if (!e) {
		this->mutex->unlock(this->mutex);
		return NOT_FOUND;
	}
	/*
	 * tried even while the subscription is down: an SA left behind would stay
	 * until charon restarts (deleting it also removes the rules on it)
	 */
	snprintf(req, sizeof(req), "del sa %s %u", e->inbound ? "in" : "out", e->spi);
	s = simple(this, NULL, req);
	if (s == NOT_FOUND || (s != SUCCESS && !this->ready))
		s = SUCCESS;    /* dropped already (restart, flush), or no gateway to hold it */
	if (s != SUCCESS)
		DBG1(DBG_KNL, "kernel-vecsec: deleting SA 0x%08x in vecsec-gw failed; it "
		     "stays until the gateway or charon restarts", e->spi);
	this->mutex->unlock(this->mutex);
	DBG2(DBG_KNL, "kernel-vecsec: deleted SA 0x%08x", e->spi);
	sa_entry_destroy(e);
	return s;
}

METHOD(kernel_ipsec_t, flush_sas, status_t,
	private_kernel_vecsec_ipsec_t *this)
{
	enumerator_t *en;
	sa_entry_t *e;
	policy_entry_t *p;
	char req[64];
	status_t s;

	snprintf(req, sizeof(req), "flush owner %s", this->owner);
	this->mutex->lock(this->mutex);
	s = simple(this, NULL, req);
	en = this->sas->create_enumerator(this->sas);
	while (en->enumerate(en, NULL, &e)) {
		this->sas->remove_at(this->sas, en);
		sa_entry_destroy(e);
	}
	en->destroy(en);
	/* the gateway took the rules with their SAs */
	en = this->policies->create_enumerator(this->policies);
	while (en->enumerate(en, NULL, &p)) {
		free(p->rule);
		p->rule = NULL;
	}
	en->destroy(en);
	this->mutex->unlock(this->mutex);
	return s;
}

/* ---- policies -------------------------------------------------------------------- */

/* fixed bits of a port range, for kernel-netlink's priority */
static u_int
port_bits(uint16_t from, uint16_t to)
{
	u_int span = (u_int)to - from + 1, bits = 0;

	if (from > to)
		return 0;
	while ((1u << bits) < span)
		bits++;
	return 16 - bits;
}

/*
 * The rule's words after its action: "pri P src S dst D ... owner O".
 * Selectors are subnets (charon's are ranges; a range that is not a subnet
 * gets the smallest subnet holding it, as kernel-netlink does).
 */
static char *
policy_sel(kernel_ipsec_policy_id_t *id, kernel_ipsec_manage_policy_t *data, char *owner)
{
	traffic_selector_t *ts[2] = { id->src_ts, id->dst_ts };
	char addr[2][INET6_ADDRSTRLEN + 4], ports[2][24] = { "", "" }, proto[24] = "";
	uint8_t mask[2], p;
	uint32_t prio = PRIO_BASE;
	int pri;
	u_int bits = 0;
	char *sel;

	for (int k = 0; k < 2; k++) {
		host_t *net;
		char a[INET6_ADDRSTRLEN];
		uint16_t from = ts[k]->get_from_port(ts[k]), to = ts[k]->get_to_port(ts[k]);
		uint8_t tp = ts[k]->get_protocol(ts[k]);

		if (!ts[k]->to_subnet(ts[k], &net, &mask[k]))
			DBG1(DBG_KNL, "kernel-vecsec: selector %R is not a subnet; the gateway rule "
			     "covers %H/%u", ts[k], net, mask[k]);
		if (!addr_str(net, a, sizeof(a))) {
			net->destroy(net);
			return NULL;
		}
		net->destroy(net);
		snprintf(addr[k], sizeof(addr[k]), "%s/%u", a, mask[k]);
		/* ICMP's type and code live in the ports (RFC 4301 4.4.1.1): not a gateway field */
		if (tp != IPPROTO_ICMP && tp != IPPROTO_ICMPV6 && !(from == 0 && to == 0xffff) &&
				from <= to) {
			snprintf(ports[k], sizeof(ports[k]), " %s %u:%u", k ? "dport" : "sport", from,
				 to);
			bits += port_bits(from, to);
		}
	}
	p = max(id->src_ts->get_protocol(id->src_ts), id->dst_ts->get_protocol(id->dst_ts));
	if (p)
		snprintf(proto, sizeof(proto), " proto %u:%u", p, p);
	switch (data->prio) {
	case POLICY_PRIORITY_FALLBACK:
		prio += PRIO_BASE;
		/* fall through */
	case POLICY_PRIORITY_ROUTED:
	case POLICY_PRIORITY_DEFAULT:
		prio += PRIO_BASE;
		/* fall through */
	case POLICY_PRIORITY_PASS:
		break;
	}
	prio -= (mask[0] + mask[1]) * 512;
	prio -= p ? 256 : 0;
	prio -= bits * 4;
	prio -= data->prio != POLICY_PRIORITY_ROUTED;
	if (data->manual_prio)
		prio = data->manual_prio;
	pri = prio >= GW_PRIO_TOP ? 0 : GW_PRIO_TOP - (int)prio;
	if (asprintf(&sel, "pri %d src %s dst %s%s%s%s owner %s", pri, addr[0], addr[1], proto,
		     ports[0], ports[1], owner) < 0)
		return NULL;
	return sel;
}

static void
policy_action(policy_user_t *u, char *out, size_t len)
{
	if (u->type == POLICY_IPSEC)
		snprintf(out, len, "protect %u", u->spi);
	else
		snprintf(out, len, "%s", u->type == POLICY_PASS ? "bypass" : "discard");
}

/* The rule of entry e with the action of user u. */
static char *
policy_rule(policy_entry_t *e, policy_user_t *u)
{
	char act[32], *rule;

	policy_action(u, act, sizeof(act));
	if (asprintf(&rule, "%s %s %s", e->sel_dir, act, e->sel) < 0)
		return NULL;
	return rule;
}

/* Make the gateway's rule for e match its newest user (or go when none is left). */
static status_t
policy_sync(private_kernel_vecsec_ipsec_t *this, policy_entry_t *e)
{
	policy_user_t *u = NULL;
	char *rule, *err = NULL;
	status_t s;

	if (e->dir == POLICY_FWD)
		return SUCCESS;
	if (e->users->get_last(e->users, (void **)&u) != SUCCESS) {
		if (!e->rule)
			return SUCCESS;
		char *req;

		if (asprintf(&req, "del %s", e->rule) < 0)
			return FAILED;
		s = simple(this, &err, req);
		free(req);
		if (s == NOT_FOUND || (s == FAILED && err && strstr(err, "no such SP rule")))
			s = SUCCESS;    /* gone with its SA already */
		if (s != SUCCESS)
			DBG1(DBG_KNL, "kernel-vecsec: removing policy %R === %R %N from vecsec-gw "
			     "failed: %s", e->src_ts, e->dst_ts, policy_dir_names, e->dir, err);
		free(err);
		free(e->rule);
		e->rule = NULL;
		return s;
	}
	if (e->rule && e->type == u->type && e->spi == u->spi)
		return SUCCESS;
	rule = policy_rule(e, u);
	if (!rule)
		return FAILED;
	if (e->rule) {
		char act[32], *req;

		policy_action(u, act, sizeof(act));
		if (asprintf(&req, "replace %s with %s", e->rule, act) < 0) {
			free(rule);
			return FAILED;
		}
		s = simple(this, &err, req);
		free(req);
		if (s != SUCCESS && err && strstr(err, "no such SP rule")) {
			/* the gateway removed it with the SA it protected with: add it afresh */
			free(err);
			err = NULL;
			s = simple(this, &err, rule);
		}
	} else {
		s = simple(this, &err, rule);
	}
	if (s != SUCCESS) {
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw refused policy %R === %R %N: %s",
		     e->src_ts, e->dst_ts, policy_dir_names, e->dir, err);
		free(err);
		free(rule);
		return FAILED;
	}
	free(err);
	free(e->rule);
	e->rule = rule;
	e->type = u->type;
	e->spi = u->spi;
	return SUCCESS;
}

METHOD(kernel_ipsec_t, add_policy, status_t,
	private_kernel_vecsec_ipsec_t *this, kernel_ipsec_policy_id_t *id,
	kernel_ipsec_manage_policy_t *data)
{
	policy_entry_t key = { .dir = id->dir, .src_ts = id->src_ts, .dst_ts = id->dst_ts }, *e;
	policy_user_t *u;
	status_t s;
	bool fresh = FALSE;

	if (id->src_ts->get_type(id->src_ts) != id->dst_ts->get_type(id->dst_ts))
		return NOT_SUPPORTED;
	if (data->type == POLICY_IPSEC && (!data->sa || !data->sa->esp.use ||
					   !data->sa->esp.spi)) {
		DBG1(DBG_KNL, "kernel-vecsec: policy %R === %R %N has no SA yet: trap policies "
		     "(start_action = trap) are not supported by vecsec-gw, use start",
		     id->src_ts, id->dst_ts, policy_dir_names, id->dir);
		return NOT_SUPPORTED;
	}
	if (id->mark.value || id->if_id || id->interface || id->label)
		DBG2(DBG_KNL, "kernel-vecsec: policy marks, interfaces, IDs and labels are "
		     "ignored by vecsec-gw");
	this->mutex->lock(this->mutex);
	if (id->dir != POLICY_FWD && !check_ready(this, "installing a policy")) {
		this->mutex->unlock(this->mutex);
		return FAILED;
	}
	e = this->policies->get(this->policies, &key);
	if (!e) {
		INIT(e,
			.dir = id->dir,
			.src_ts = id->src_ts->clone(id->src_ts),
			.dst_ts = id->dst_ts->clone(id->dst_ts),
			.users = linked_list_create(),
		);
		if (id->dir != POLICY_FWD) {
			e->sel = policy_sel(id, data, this->owner);
			if (asprintf(&e->sel_dir, "sp ipv%c %s esp",
				     id->src_ts->get_type(id->src_ts) == TS_IPV4_ADDR_RANGE ? '4' : '6',
				     id->dir == POLICY_OUT ? "out" : "in") < 0)
				e->sel_dir = NULL;
		}
		if (id->dir != POLICY_FWD && (!e->sel || !e->sel_dir)) {
			policy_entry_destroy(e);
			this->mutex->unlock(this->mutex);
			return FAILED;
		}
		this->policies->put(this->policies, e, e);
		fresh = TRUE;
	}
	INIT(u,
		.reqid = data->sa ? data->sa->reqid : 0,
		.spi = data->type == POLICY_IPSEC ? ntohl(data->sa->esp.spi) : 0,
		.type = data->type,
	);
	e->users->insert_last(e->users, u);
	s = policy_sync(this, e);
	if (s != SUCCESS) {
		e->users->remove_last(e->users, (void **)&u);
		free(u);
		if (fresh) {
			this->policies->remove(this->policies, e);
			policy_entry_destroy(e);
		}
	}
	this->mutex->unlock(this->mutex);
	return s;
}

METHOD(kernel_ipsec_t, query_policy, status_t,
	private_kernel_vecsec_ipsec_t *this, kernel_ipsec_policy_id_t *id,
	kernel_ipsec_query_policy_t *data, time_t *use_time)
{
	policy_entry_t key = { .dir = id->dir, .src_ts = id->src_ts, .dst_ts = id->dst_ts }, *e;
	kernel_vecsec_answer_t a;
	uint64_t t = 0;
	status_t s;

	this->mutex->lock(this->mutex);
	e = this->policies->get(this->policies, &key);
	if (!e || !e->rule || e->type != POLICY_IPSEC || !this->ready) {
		this->mutex->unlock(this->mutex);
		return NOT_FOUND;
	}
	/* the last use of the SA the rule protects with */
	s = this->ctl->request(this->ctl, &a, e->dir == POLICY_OUT ? "query sa out %u" :
			       "query sa in %u", e->spi);
	this->mutex->unlock(this->mutex);
	if (s == SUCCESS && !kernel_vecsec_answer_u64(&a, "sa", "last-use", &t))
		s = FAILED;
	kernel_vecsec_answer_free(&a);
	if (s == SUCCESS)
		*use_time = (time_t)t;
	return s;
}

METHOD(kernel_ipsec_t, del_policy, status_t,
	private_kernel_vecsec_ipsec_t *this, kernel_ipsec_policy_id_t *id,
	kernel_ipsec_manage_policy_t *data)
{
	policy_entry_t key = { .dir = id->dir, .src_ts = id->src_ts, .dst_ts = id->dst_ts }, *e;
	enumerator_t *en;
	policy_user_t *u, *found = NULL;
	uint32_t reqid = data->sa ? data->sa->reqid : 0;
	uint32_t spi = data->type == POLICY_IPSEC && data->sa ? ntohl(data->sa->esp.spi) : 0;
	status_t s = SUCCESS;

	this->mutex->lock(this->mutex);
	e = this->policies->get(this->policies, &key);
	if (!e) {
		this->mutex->unlock(this->mutex);
		return NOT_FOUND;
	}
	/* the user this call names: its SA; else its reqid (charon may omit the SPI) */
	en = e->users->create_enumerator(e->users);
	while (en->enumerate(en, &u))
		if (u->type == data->type && u->reqid == reqid && u->spi == spi) {
			found = u;
			break;
		}
	en->destroy(en);
	if (!found) {
		en = e->users->create_enumerator(e->users);
		while (en->enumerate(en, &u))
			if (u->type == data->type && u->reqid == reqid) {
				found = u;
				break;
			}
		en->destroy(en);
	}
	if (!found) {
		this->mutex->unlock(this->mutex);
		return NOT_FOUND;
	}
	e->users->remove(e->users, found, NULL);
	free(found);
	s = policy_sync(this, e);
	if (!this->ready)
		s = SUCCESS;    /* the gateway restarted or is away: its rules went with it */
	if (e->users->get_count(e->users) == 0) {
		this->policies->remove(this->policies, e);
		policy_entry_destroy(e);
	}
	this->mutex->unlock(this->mutex);
	return s;
}

METHOD(kernel_ipsec_t, flush_policies, status_t,
	private_kernel_vecsec_ipsec_t *this)
{
	enumerator_t *en;
	policy_entry_t *e;

	this->mutex->lock(this->mutex);
	en = this->policies->create_enumerator(this->policies);
	while (en->enumerate(en, NULL, &e)) {
		e->users->destroy_function(e->users, free);
		e->users = linked_list_create();
		if (this->ready)
			policy_sync(this, e);
		this->policies->remove_at(this->policies, en);
		policy_entry_destroy(e);
	}
	en->destroy(en);
	this->mutex->unlock(this->mutex);
	return SUCCESS;
}

/* Register port in the gateway now if it is up; remembered for restarts either way. */
static bool
register_port(private_kernel_vecsec_ipsec_t *this, linked_list_t *list, char *what,
	      uint16_t port)
{
	enumerator_t *en;
	uintptr_t p;
	bool known = FALSE;
	char req[64];
	status_t s = SUCCESS;

	/* owned: `flush owner` (a new charon's first request) takes them out again */
	snprintf(req, sizeof(req), "%s udp %u owner %s", what, port, this->owner);
	this->mutex->lock(this->mutex);
	en = list->create_enumerator(list);
	while (en->enumerate(en, &p))
		known = known || p == port;
	en->destroy(en);
	if (!known)
		list->insert_last(list, (void *)(uintptr_t)port);
	if (this->ready)
		s = simple(this, NULL, req);
	this->mutex->unlock(this->mutex);
	if (s != SUCCESS)
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw refused '%s'", req);
	return s == SUCCESS;
}

static uint16_t
sock_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

METHOD(kernel_ipsec_t, bypass_socket, bool,
	private_kernel_vecsec_ipsec_t *this, int fd, int family)
{
	uint16_t port = sock_port(fd);

	/* the kernel's per-socket bypass: the gateway lets the host's IKE out past its SPD */
	if (port == 0)
		return FALSE;
	return register_port(this, this->bypass_ports, "bypass", port);
}

METHOD(kernel_ipsec_t, enable_udp_decap, bool,
	private_kernel_vecsec_ipsec_t *this, int fd, int family, uint16_t port)
{
	/* ESP in UDP to this port is the gateway's (RFC 3948), the rest the host's */
	return register_port(this, this->natt_ports, "natt", port);
}

/* ---- the gateway's events and restarts ------------------------------------------- */

typedef struct {
	uint32_t spi;
	host_t *dst;
	bool hard;
} pending_expire_t;

/* charon->kernel->expire() for each, outside the mutex (charon calls back into us) */
static void
raise_expires(linked_list_t *list)
{
	pending_expire_t *p;

	while (list->remove_first(list, (void **)&p) == SUCCESS) {
		charon->kernel->expire(charon->kernel, IPPROTO_ESP, htonl(p->spi), p->dst, p->hard);
		p->dst->destroy(p->dst);
		free(p);
	}
	list->destroy(list);
}

static void
queue_expire(linked_list_t *list, sa_entry_t *e, bool hard)
{
	pending_expire_t *p;

	INIT(p,
		.spi = e->spi,
		.dst = e->dst->clone(e->dst),
		.hard = hard,
	);
	list->insert_last(list, p);
}

/* One event line: "expire soft|hard in|out SPI packets|bytes LIMIT". */
static void
handle_event(private_kernel_vecsec_ipsec_t *this, char *line, linked_list_t *out)
{
	char kind[8], dir[8];
	unsigned long long spi;
	enumerator_t *en;
	sa_entry_t *e;

	if (sscanf(line, "expire %7s %7s %llu", kind, dir, &spi) != 3 || spi > UINT32_MAX ||
			(strcmp(kind, "soft") != 0 && strcmp(kind, "hard") != 0) ||
			(strcmp(dir, "in") != 0 && strcmp(dir, "out") != 0)) {
		DBG1(DBG_KNL, "kernel-vecsec: unknown event from vecsec-gw ignored");
		return;
	}
	this->mutex->lock(this->mutex);
	en = this->sas->create_enumerator(this->sas);
	while (en->enumerate(en, NULL, &e)) {
		if (e->installed && e->spi == spi && e->inbound == (dir[0] == 'i')) {
			bool hard = kind[0] == 'h';

			if (hard)
				e->hard_seen = TRUE;
			else
				e->soft_seen = TRUE;
			DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw: %s", line);
			queue_expire(out, e, hard);
			break;
		}
	}
	en->destroy(en);
	this->mutex->unlock(this->mutex);
}

/* Events that went by while the subscription was down: each SA's expired flags. */
static void
resync_expires(private_kernel_vecsec_ipsec_t *this, linked_list_t *out)
{
	enumerator_t *en;
	sa_entry_t *e;

	en = this->sas->create_enumerator(this->sas);
	while (en->enumerate(en, NULL, &e)) {
		kernel_vecsec_answer_t a;
		uint64_t soft = 0, hard = 0;

		if (!e->installed)
			continue;
		if (this->ctl->request(this->ctl, &a, e->inbound ? "query sa in %u" :
				       "query sa out %u", e->spi) == SUCCESS &&
				kernel_vecsec_answer_u64(&a, "sa", "soft-expired", &soft) &&
				kernel_vecsec_answer_u64(&a, "sa", "hard-expired", &hard)) {
			if (hard && !e->hard_seen) {
				e->hard_seen = TRUE;
				queue_expire(out, e, TRUE);
			} else if (soft && !e->soft_seen) {
				e->soft_seen = TRUE;
				queue_expire(out, e, FALSE);
			}
		}
		kernel_vecsec_answer_free(&a);
	}
	en->destroy(en);
}

/*
 * The requests this plugin sends (owner, flush owner, port registration
 * and its `del`) are protocol 1.5's; any later 1.x only adds. A gateway
 * that answers an older 1.x would refuse some of them midway, so it is
 * treated as not usable, with a log line that says which version is needed.
 */
#define KV_MIN_MINOR 5
#define KV_MIN_MINOR_S "5"

static bool
proto_ok(const char *lines)
{
	unsigned int major, minor;

	if (sscanf(lines, "version %u.%u", &major, &minor) != 2)
		return FALSE;
	return major == 1 && minor >= KV_MIN_MINOR;
}

static void ha_sync(private_kernel_vecsec_ipsec_t *this);

/* charon's active segments as kernel-vecsec last read them (ha_logger) */
static uint16_t
ha_want_now(private_kernel_vecsec_ipsec_t *this)
{
	uint16_t want;

	this->ha_mutex->lock(this->ha_mutex);
	want = this->ha_want;
	this->ha_mutex->unlock(this->ha_mutex);
	return want;
}

/*
 * (Re)connect: hello, then what the gateway's state needs (first contact:
 * flush this owner's leftovers; a new boot id: our SAs are gone), the
 * registered ports, and the subscription. Returns its fd, or -1.
 */
static int
connect_gw(private_kernel_vecsec_ipsec_t *this, bool *logged_down)
{
	kernel_vecsec_answer_t a;
	linked_list_t *expires = linked_list_create();
	enumerator_t *en, *en2;
	uint64_t boot = 0;
	uintptr_t port;
	sa_entry_t *e;
	policy_entry_t *p;
	int fd = -1, restarted = 0;
	char *line;

	this->mutex->lock(this->mutex);
	if (this->ctl->request(this->ctl, &a, "hello") != SUCCESS ||
			(line = strstr(a.lines, "boot ")) == NULL ||
			sscanf(line, "boot %" SCNx64, &boot) != 1 || boot == 0 ||
			!proto_ok(a.lines)) {
		if (!*logged_down) {
			DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw not usable at %s (%s); CHILD_SAs "
			     "cannot be installed until it is; retrying every second",
			     this->ctl->get_path(this->ctl), a.err && a.err[0] ? a.err :
			     "no protocol 1." KV_MIN_MINOR_S " or later 1.x answer to hello");
			*logged_down = TRUE;
		}
		kernel_vecsec_answer_free(&a);
		this->ready = FALSE;
		this->mutex->unlock(this->mutex);
		expires->destroy(expires);
		return -1;
	}
	kernel_vecsec_answer_free(&a);
	/*
	 * the ha plugin's segments first: a gateway that (re)starts with other
	 * segments active must not carry them with the SAs installed below
	 */
	if (this->ha)
		ha_sync(this);
	if (this->boot == 0) {
		char req[64];

		/* a new charon: whatever this owner has in the gateway is stale */
		snprintf(req, sizeof(req), "flush owner %s", this->owner);
		if (simple(this, NULL, req) != SUCCESS) {
			this->mutex->unlock(this->mutex);
			expires->destroy(expires);
			return -1;
		}
		DBG1(DBG_KNL, "kernel-vecsec: connected to vecsec-gw at %s (boot %016" PRIx64 "), "
		     "flushed what owner '%s' had left there", this->ctl->get_path(this->ctl),
		     boot, this->owner);
	} else if (boot != this->boot) {
		/*
		 * restarted: every SA and rule is gone; charon re-creates its CHILD_SAs.
		 * Not those of a passive IKE_SA (the ha plugin's standby copies:
		 * charon ignores their expiry), so the standby copies, the SAs of
		 * segments not active here, are installed again as they were (they
		 * carried no traffic here); an SA of an active segment is expired
		 */
		uint16_t want = 0;
		int again = 0;

		if (this->ha)
			want = ha_want_now(this);
		en = this->policies->create_enumerator(this->policies);
		while (en->enumerate(en, NULL, &p)) {
			free(p->rule);
			p->rule = NULL;
		}
		en->destroy(en);
		en = this->sas->create_enumerator(this->sas);
		while (en->enumerate(en, NULL, &e)) {
			bool standby = FALSE;

			if (!e->installed)
				continue;
			e->installed = FALSE;
			if (this->ha && e->req) {
				chunk_t d = e->dst->get_address(e->dst);
				uint32_t a = e->dst->get_family(e->dst) == AF_INET ? untoh32(d.ptr) : 0;

				standby = !(want & gw_ha_seg_bit(gw_ha_seg_sa(a, e->spi,
									     this->ha_count)));
			}
			if (standby && simple(this, NULL, e->req) == SUCCESS) {
				e->installed = TRUE;
				again++;
			} else if (e->inbound || this->ha) {
				/* (with the plugin, an outbound SA of an active segment may
				 * belong to a standby inbound one: expire it on its own) */
				queue_expire(expires, e, TRUE);
				restarted++;
			}
		}
		en->destroy(en);
		if (again) {
			/* and the rules that protect with them */
			en = this->policies->create_enumerator(this->policies);
			while (en->enumerate(en, NULL, &p)) {
				policy_user_t *u;
				sa_entry_t *x = NULL;

				if (p->dir == POLICY_FWD ||
						p->users->get_last(p->users, (void **)&u) != SUCCESS ||
						u->type != POLICY_IPSEC)
					continue;
				en2 = this->sas->create_enumerator(this->sas);
				while (en2->enumerate(en2, NULL, &e))
					if (e->spi == u->spi && e->inbound == (p->dir == POLICY_IN))
						x = e;
				en2->destroy(en2);
				if (x && x->installed)
					policy_sync(this, p);
			}
			en->destroy(en);
		}
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw at %s restarted (boot %016" PRIx64 " -> "
		     "%016" PRIx64 ") and lost its SAs: expiring %d SA(s) so that charon "
		     "re-creates their CHILD_SAs", this->ctl->get_path(this->ctl), this->boot, boot,
		     restarted);
		if (again)
			DBG1(DBG_KNL, "kernel-vecsec: installed %d standby SA(s) of the ha plugin's "
			     "passive CHILD_SAs again (segments not active here)", again);
	} else {
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw event subscription at %s re-established",
		     this->ctl->get_path(this->ctl));
	}
	for (int k = 0; k < 2; k++) {
		linked_list_t *list = k ? this->natt_ports : this->bypass_ports;

		en = list->create_enumerator(list);
		while (en->enumerate(en, &port)) {
			char req[64];

			snprintf(req, sizeof(req), "%s udp %u owner %s", k ? "natt" : "bypass",
				 (u_int)port, this->owner);
			simple(this, NULL, req);
		}
		en->destroy(en);
	}
	fd = this->ctl->subscribe(this->ctl);
	if (fd >= 0) {
		if (this->boot == boot)
			resync_expires(this, expires);
		this->boot = boot;
		this->ready = TRUE;
		*logged_down = FALSE;
	}
	this->mutex->unlock(this->mutex);
	raise_expires(expires);
	return fd;
}

/* ---- strongSwan's ha plugin: segments --------------------------------------------- */

/*
 * The ha plugin moves segments by writing "+N"/"-N" into ClusterIP's files
 * under /proc/net/ipt_CLUSTERIP, which Linux removed in 6.3; it makes no
 * kernel_ipsec_t call when a segment moves. What it does on every change
 * (a takeover, a heartbeat timeout taking all segments, a node dropping
 * them at shutdown, the FIFO's +N/-N, autobalancing) is log, at DBG_CFG
 * level 1, in ha_segments.c's log_segments():
 *
 *     HA segment N activated, now active: 1,2
 *     HA segment N deactivated, now active: none
 *
 * The line carries the whole set, so reading it is idempotent. Checked
 * against strongSwan 5.9.8 (Debian 12's libcharon-extra-plugins); another
 * version is warned about at start (docs/ha.md). At start the plugin has
 * no segment active and logs nothing: the gateway is set to none first.
 */
#define HA_WORDING_VERSION "5.9.8"
/* the plugin's FIFO: IPSEC_PIDDIR/charon.ha, Debian's piddir */
#define HA_FIFO_DEFAULT "/var/run/charon.ha"
#define HA_SEG_MAX 16

/* "1,2" or "none" into a mask of segments 1..HA_SEG_MAX; FALSE if not such a list */
static bool
ha_parse_list(const char *list, uint16_t *mask)
{
	const char *p = list;

	*mask = 0;
	if (strcmp(list, "none") == 0)
		return TRUE;
	while (*p) {
		u_int n = 0;
		int digits = 0;

		while (*p >= '0' && *p <= '9' && digits < 3) {
			n = n * 10 + (u_int)(*p++ - '0');
			digits++;
		}
		if (digits == 0 || n < 1 || n > HA_SEG_MAX || (*p != ',' && *p != '\0'))
			return FALSE;
		*mask |= (uint16_t)(1u << (n - 1));
		if (*p == ',' && *++p == '\0')
			return FALSE;
	}
	return *mask != 0;
}

/* The ha plugin's line: the new active set, or FALSE if msg is not that line. */
static bool
ha_parse_line(const char *msg, uint16_t *mask)
{
	char word[16], list[64], tail[2];
	u_int seg;

	if (strncmp(msg, "HA segment ", 11) != 0 ||
			sscanf(msg, "HA segment %u %15s now active: %63s %1s", &seg, word, list,
			       tail) != 3 || seg < 1 || seg > HA_SEG_MAX || strlen(list) >= 63 ||
			!ha_parse_list(list, mask))
		return FALSE;
	/* the named segment must be in the set iff it was activated */
	if (strcmp(word, "activated,") == 0)
		return (*mask & (1u << (seg - 1))) != 0;
	if (strcmp(word, "deactivated,") == 0)
		return (*mask & (1u << (seg - 1))) == 0;
	return FALSE;
}

/*
 * logger_t: called by charon's bus with its log lock (and the ha plugin's
 * segment lock) held, so it only notes the set and wakes the watcher
 * thread; it logs nothing itself (that would come back here).
 */
static void
ha_log(logger_t *logger, debug_t group, level_t level, int thread, ike_sa_t *ike_sa,
       const char *message)
{
	private_kernel_vecsec_ipsec_t *this = (private_kernel_vecsec_ipsec_t *)
		((char *)logger - offsetof(private_kernel_vecsec_ipsec_t, ha_logger));
	uint16_t mask;

	if (group != DBG_CFG || !ha_parse_line(message, &mask))
		return;
	this->ha_mutex->lock(this->ha_mutex);
	this->ha_want = mask;
	this->ha_dirty = TRUE;
	this->ha_mutex->unlock(this->ha_mutex);
	if (write(this->wake[1], "s", 1) < 0) {
		/* full pipe: the watcher has a wake-up pending already */
	}
}

static level_t
ha_get_level(logger_t *logger, debug_t group)
{
	return group == DBG_CFG ? LEVEL_CTRL : LEVEL_SILENT;
}

static void
ha_mask_text(uint16_t mask, char *out, size_t len)
{
	size_t o = 0;

	snprintf(out, len, "none");
	for (u_int n = 1; n <= HA_SEG_MAX && mask; n++)
		if (mask & (1u << (n - 1))) {
			int k = snprintf(out + o, len - o, "%s%u", o ? "," : "", n);

			if (k < 0 || (size_t)k >= len - o)
				break;
			o += (size_t)k;
		}
}

/*
 * Make the gateway's active segments charon's: ask `segments`, send
 * `segment -N` for each one too many (first: never both nodes longer than
 * needed), then `segment +N` for each one missing. Only the differences go
 * out, so it may run any number of times. Runs in the watcher thread (or
 * at destroy), never in the logger. A failure leaves it dirty: retried.
 */
/* The other node's gateway in a `segments` answer ("sync partner up|syncing|down"). */
static void
ha_note_partner(private_kernel_vecsec_ipsec_t *this, const char *lines)
{
	const char *p = strstr(lines, " sync partner ");
	int was = this->ha_partner;

	const char *e;

	if (p == NULL)
		this->ha_partner = -1;
	else
		this->ha_partner = strncmp(p + 14, "down", 4) == 0 ? 0 : 1;
	this->ha_local[0] = this->ha_remote[0] = '\0';
	if (p != NULL && (e = strstr(p, " epoch ")) != NULL &&
			sscanf(e, " epoch %" SCNu32 " partner_epoch %" SCNu32, &this->ha_epoch,
			       &this->ha_peer_epoch) == 2 && (e = strstr(p, " local ")) != NULL &&
			sscanf(e, " local %63s remote %63s", this->ha_local, this->ha_remote) != 2)
		this->ha_local[0] = this->ha_remote[0] = '\0';
	if (this->ha_partner >= 0 && this->ha_partner != was)
		DBG1(DBG_KNL, "kernel-vecsec: the other node's gateway is %s (vecsec-gw's cluster "
		     "sync)", this->ha_partner ? "up" : "down");
}

static void
ha_sync(private_kernel_vecsec_ipsec_t *this)
{
	kernel_vecsec_answer_t a;
	uint64_t count = 0;
	uint16_t want, have = 0;
	char *m, w[64], h[64];
	bool ok = TRUE;

	this->ha_mutex->lock(this->ha_mutex);
	want = this->ha_want;
	this->ha_dirty = FALSE;
	this->ha_mutex->unlock(this->ha_mutex);

	if (this->ctl->request(this->ctl, &a, "segments") != SUCCESS ||
			!kernel_vecsec_answer_u64(&a, "segments", "count", &count) || count < 1 ||
			count > HA_SEG_MAX || (m = strstr(a.lines, " mask 0x")) == NULL) {
		if (strstr(a.err, "clustering is off")) {
			if (!this->ha_off_logged)
				DBG1(DBG_KNL, "kernel-vecsec: the ha plugin is configured, but vecsec-gw "
				     "at %s runs without --cluster: it cannot follow the segments "
				     "(docs/ha.md)", this->ctl->get_path(this->ctl));
			this->ha_off_logged = TRUE;
		} else {
			/* (a gateway before control protocol 1.8 has no `segments`) */
			if (!this->ha_fail_logged)
				DBG1(DBG_KNL, "kernel-vecsec: asking vecsec-gw for its segments failed "
				     "(%s; it needs control protocol 1.8); retrying", a.err[0] ? a.err :
				     "malformed answer");
			this->ha_fail_logged = TRUE;
			ok = FALSE;
		}
		kernel_vecsec_answer_free(&a);
		goto out;
	}
	have = (uint16_t)strtoul(m + 8, NULL, 16);
	ha_note_partner(this, a.lines);
	kernel_vecsec_answer_free(&a);
	this->ha_off_logged = FALSE;
	if (want >> count) {
		ha_mask_text(want, w, sizeof(w));
		DBG1(DBG_KNL, "kernel-vecsec: charon's ha plugin has segments %s active, vecsec-gw "
		     "counts %u: its --cluster COUNT must be the plugin's segment_count", w,
		     (u_int)count);
	}
	for (int pass = 0; pass < 2; pass++)
		for (u_int n = 1; n <= count; n++) {
			uint16_t bit = (uint16_t)(1u << (n - 1));
			char req[32];

			if (pass == 0 && (have & bit) && !(want & bit))
				snprintf(req, sizeof(req), "segment -%u", n);
			else if (pass == 1 && (want & bit) && !(have & bit))
				snprintf(req, sizeof(req), "segment +%u", n);
			else
				continue;
			if (simple(this, NULL, req) != SUCCESS) {
				if (!this->ha_fail_logged)
					DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw refused '%s'; retrying",
					     req);
				this->ha_fail_logged = TRUE;
				ok = FALSE;
			} else {
				have = pass ? (uint16_t)(have | bit) : (uint16_t)(have & ~bit);
				DBG2(DBG_KNL, "kernel-vecsec: sent '%s' to vecsec-gw", req);
			}
		}
	if (ok) {
		this->ha_fail_logged = FALSE;
		ha_mask_text(want, w, sizeof(w));
		ha_mask_text(have, h, sizeof(h));
		DBG1(DBG_KNL, "kernel-vecsec: HA segments active in vecsec-gw: %s (charon's: %s)",
		     h, w);
	}
out:
	if (!ok) {
		this->ha_mutex->lock(this->ha_mutex);
		this->ha_dirty = TRUE;
		this->ha_mutex->unlock(this->ha_mutex);
	}
}

static bool
ha_is_dirty(private_kernel_vecsec_ipsec_t *this)
{
	bool d;

	this->ha_mutex->lock(this->ha_mutex);
	d = this->ha_dirty;
	this->ha_mutex->unlock(this->ha_mutex);
	return d;
}

/*
 * The gateway went away while charon carries segments: charon's heartbeats
 * go on, so the other node would never take them, and nothing carries
 * them here. Hand each to the other node through the plugin's FIFO: "-N"
 * deactivates N here and sends the other node a segment drop, on which it
 * activates N. The plugin reads one command per open of the FIFO, so each
 * waits until the log line shows N gone (ha_log), up to a bound. When the
 * gateway returns, connect_gw's ha_sync sets it to charon's set: none.
 */
#define HA_HANDOFF_WAIT_MS 3000

/* The gateway still answers `hello`: only the subscription ended, no handoff. */
static bool
gw_answers(private_kernel_vecsec_ipsec_t *this)
{
	kernel_vecsec_answer_t a;
	bool ok;

	this->mutex->lock(this->mutex);
	ok = this->ctl->request(this->ctl, &a, "hello") == SUCCESS;
	this->mutex->unlock(this->mutex);
	kernel_vecsec_answer_free(&a);
	return ok;
}

#define HA_PARTNER_POLL_MS 500

/* Every HA_PARTNER_POLL_MS: what this node's gateway knows of the other node's. */
static void
ha_poll_partner(private_kernel_vecsec_ipsec_t *this)
{
	kernel_vecsec_answer_t a;
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	if (now - this->ha_partner_ms < HA_PARTNER_POLL_MS)
		return;
	this->ha_partner_ms = now;
	if (this->ctl->request(this->ctl, &a, "segments") == SUCCESS)
		ha_note_partner(this, a.lines);
	kernel_vecsec_answer_free(&a);
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into sa; FALSE when not one */
static bool
ha_end(const char *text, struct sockaddr_storage *sa, socklen_t *len)
{
	char a[64];
	const char *colon = strrchr(text, ':');
	unsigned int port;

	memset(sa, 0, sizeof(*sa));
	if (colon == NULL || sscanf(colon + 1, "%u", &port) != 1 || port == 0 || port > 65535 ||
			(size_t)(colon - text) >= sizeof(a))
		return FALSE;
	if (text[0] == '[') {
		struct sockaddr_in6 *x = (struct sockaddr_in6 *)sa;

		if (colon - text < 3 || colon[-1] != ']')
			return FALSE;
		memcpy(a, text + 1, (size_t)(colon - text - 2));
		a[colon - text - 2] = '\0';
		x->sin6_family = AF_INET6;
		x->sin6_port = htons((uint16_t)port);
		*len = sizeof(*x);
		return inet_pton(AF_INET6, a, &x->sin6_addr) == 1;
	} else {
		struct sockaddr_in *x = (struct sockaddr_in *)sa;

		memcpy(a, text, (size_t)(colon - text));
		a[colon - text] = '\0';
		x->sin_family = AF_INET;
		x->sin_port = htons((uint16_t)port);
		*len = sizeof(*x);
		return inet_pton(AF_INET, a, &x->sin_addr) == 1;
	}
}

/*
 * Tell the other node's gateway that this one is gone (vecsec-gw's
 * --cluster-sync message GONE, hasync.c): from this gateway's own sync
 * address and port, free only once it is dead (bound without SO_REUSEADDR:
 * a gateway that still has it makes the bind fail, and nothing is sent),
 * with the epoch it last had. The other gateway then stops waiting for
 * acks of a partner that cannot answer (a second of held packets
 * otherwise). Sent three times: a datagram on the sync link.
 */
static void
ha_send_gone(private_kernel_vecsec_ipsec_t *this)
{
	struct sockaddr_storage l, r;
	socklen_t ll = 0, rl = 0;
	uint8_t m[16] = { 'V', 'S', 'H', 'A', 1, 4, 0, 0 };
	int fd, rc, sent = 0;

	if (this->ha_partner != 1 || this->ha_epoch == 0 || !ha_end(this->ha_local, &l, &ll) ||
			!ha_end(this->ha_remote, &r, &rl) || l.ss_family != r.ss_family)
		return;
	htoun32(m + 8, this->ha_epoch);
	htoun32(m + 12, this->ha_peer_epoch);
	fd = socket(l.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	/*
	 * the dead gateway's socket goes with the last of its process, which
	 * may still be exiting when its control socket has closed (seen on a
	 * loaded machine): up to a second (the sync's own silence timeout,
	 * after which the other gateway needs no word), every 20 ms
	 */
	for (int i = 0;; i++) {
		rc = bind(fd, (struct sockaddr *)&l, ll);
		if (rc == 0 || errno != EADDRINUSE || i >= 50 || this->stop)
			break;
		usleep(20000);
	}
	if (rc != 0) {
		DBG1(DBG_KNL, "kernel-vecsec: cannot send the other node's gateway word that this "
		     "one is gone: %s is in use (%s)", this->ha_local, strerror(errno));
		close(fd);
		return;
	}
	for (int i = 0; i < 3; i++)
		sent += sendto(fd, m, sizeof(m), 0, (struct sockaddr *)&r, rl) == sizeof(m);
	close(fd);
	DBG1(DBG_KNL, "kernel-vecsec: told the other node's gateway (%s) that this one (epoch %u) "
	     "is gone: %d of 3 sent", this->ha_remote, this->ha_epoch, sent);
}

static void
ha_handoff(private_kernel_vecsec_ipsec_t *this)
{
	uint16_t want = ha_want_now(this);
	char w[64];

	if (!want || !this->ha_fifo)
		return;
	ha_mask_text(want, w, sizeof(w));
	if (this->ha_partner == 0) {
		/*
		 * the other node's gateway is gone too (this gateway's sync had
		 * not heard it for a second): a handoff would put the segments
		 * on a node that carries nothing either, and that node's charon
		 * would keep them while its gateway is away. They stay here:
		 * carried again when this gateway returns (connect_gw sets
		 * charon's set; the SAs of active segments are re-created with
		 * new keys, so no number is sent twice under one key)
		 */
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw at %s is gone while charon's ha plugin has "
		     "segments %s active, and the other node's gateway is down too (this "
		     "gateway's cluster sync no longer heard it): keeping them here, not handing "
		     "them to a node that cannot carry them", this->ctl->get_path(this->ctl), w);
		return;
	}
	ha_send_gone(this);
	DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw at %s is gone while charon's ha plugin has "
	     "segments %s active: handing them to the other node (%s: -N)",
	     this->ctl->get_path(this->ctl), w, this->ha_fifo);
	for (u_int n = 1; n <= HA_SEG_MAX && !this->stop; n++) {
		uint16_t bit = (uint16_t)(1u << (n - 1));
		char cmd[8];
		int fd, len, waited;
		bool sent = FALSE;

		if (!(want & bit))
			continue;
		len = snprintf(cmd, sizeof(cmd), "-%u", n);
		for (waited = 0; waited < HA_HANDOFF_WAIT_MS && !this->stop; waited += 20) {
			uint16_t now;

			now = ha_want_now(this);
			if (!(now & bit))
				break;
			if (!sent) {
				/* no reader yet (ENXIO): the plugin is between two commands */
				fd = open(this->ha_fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
				if (fd >= 0) {
					sent = write(fd, cmd, (size_t)len) == len;
					close(fd);
				}
			}
			usleep(20000);
		}
		if (waited >= HA_HANDOFF_WAIT_MS)
			DBG1(DBG_KNL, "kernel-vecsec: handing segment %u to the other node: %s "
			     "(%s)", n, sent ? "the ha plugin did not deactivate it in time" :
			     "could not write the ha plugin's FIFO", this->ha_fifo);
		else if (!this->stop)
			DBG1(DBG_KNL, "kernel-vecsec: handed segment %u to the other node (the "
			     "gateway is gone)", n);
	}
}

/*
 * While this node's gateway is gone: charon's ha plugin activated segments
 * again after the handoff (it takes all segments when it misses the other
 * node's heartbeats, as it may on a loaded machine), and the other node's
 * gateway was up when last heard of: they go back to that node, as at the
 * loss. Not when that gateway was down too (ha_handoff keeps them then, and
 * said so once).
 */
static bool
ha_regained(private_kernel_vecsec_ipsec_t *this)
{
	return ha_want_now(this) != 0 && this->ha_partner != 0;
}

static void *
watch_gw(private_kernel_vecsec_ipsec_t *this)
{
	char buf[4096];
	size_t have = 0;
	int fd = this->watch_fd;
	bool logged_down = FALSE;
	/* the gateway died under charon (its segments were handed over) */
	bool gone = FALSE;

	while (!this->stop) {
		struct pollfd pfd2[2];
		ssize_t n;
		char *nl;

		if (fd < 0) {
			fd = connect_gw(this, &logged_down);
			have = 0;
			for (int i = 0; fd < 0 && i < 10 && !this->stop; i++)
				usleep(100000);
			if (fd >= 0)
				gone = FALSE;
			else if (gone && ha_regained(this))
				ha_handoff(this);
			continue;
		}
		if (this->ha && ha_is_dirty(this))
			ha_sync(this);
		if (this->ha)
			ha_poll_partner(this);
		pfd2[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
		pfd2[1] = (struct pollfd){ .fd = this->wake[0], .events = POLLIN };
		if (poll(pfd2, this->ha ? 2 : 1, 200) <= 0)
			continue;
		if (this->ha && (pfd2[1].revents & POLLIN)) {
			char drain[64];

			while (read(this->wake[0], drain, sizeof(drain)) > 0)
				;
		}
		if (!(pfd2[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = recv(fd, buf + have, sizeof(buf) - 1 - have, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw at %s closed the event subscription "
			     "(gateway stopped?); reconnecting", this->ctl->get_path(this->ctl));
			close(fd);
			fd = -1;
			this->mutex->lock(this->mutex);
			this->ready = FALSE;
			this->mutex->unlock(this->mutex);
			if (this->ha && !gw_answers(this)) {
				gone = TRUE;
				ha_handoff(this);
			}
			continue;
		}
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(buf, '\n')) != NULL) {
			linked_list_t *out = linked_list_create();
			size_t used = (size_t)(nl - buf) + 1;

			*nl = '\0';
			handle_event(this, buf, out);
			raise_expires(out);
			memmove(buf, buf + used, have - used);
			have -= used;
			buf[have] = '\0';
		}
		if (have == sizeof(buf) - 1) {
			DBG1(DBG_KNL, "kernel-vecsec: malformed event stream from vecsec-gw (a line "
			     "over %zu bytes); reconnecting", sizeof(buf));
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

METHOD(kernel_ipsec_t, destroy, void,
	private_kernel_vecsec_ipsec_t *this)
{
	enumerator_t *en;
	sa_entry_t *e;
	policy_entry_t *p;

	if (this->ha)
		charon->bus->remove_logger(charon->bus, &this->ha_logger);
	this->stop = TRUE;
	if (this->watcher)
		this->watcher->join(this->watcher);
	/*
	 * charon stops: the ha plugin has handed its segments to the other node
	 * (heartbeat on); this gateway must carry none of them any more
	 */
	if (this->ha && this->ready) {
		this->ha_want = 0;
		ha_sync(this);
	}
	/*
	 * charon stops: its IKE ports go, so that nobody else who binds them
	 * meanwhile sends past the gateway's SPD (the NAT-T port 4500 is built in)
	 */
	if (this->ready) {
		uintptr_t port;

		for (int k = 0; k < 2; k++) {
			linked_list_t *list = k ? this->natt_ports : this->bypass_ports;

			en = list->create_enumerator(list);
			while (en->enumerate(en, &port)) {
				char req[32];

				if (k && port == 4500)
					continue;
				snprintf(req, sizeof(req), "%s udp %u del", k ? "natt" : "bypass",
					 (u_int)port);
				simple(this, NULL, req);
			}
			en->destroy(en);
		}
	}
	en = this->sas->create_enumerator(this->sas);
	while (en->enumerate(en, NULL, &e))
		sa_entry_destroy(e);
	en->destroy(en);
	this->sas->destroy(this->sas);
	en = this->policies->create_enumerator(this->policies);
	while (en->enumerate(en, NULL, &p))
		policy_entry_destroy(p);
	en->destroy(en);
	this->policies->destroy(this->policies);
	this->bypass_ports->destroy(this->bypass_ports);
	this->natt_ports->destroy(this->natt_ports);
	this->ctl->destroy(this->ctl);
	this->mutex->destroy(this->mutex);
	this->ha_mutex->destroy(this->ha_mutex);
	for (int k = 0; k < 2; k++)
		if (this->wake[k] >= 0)
			close(this->wake[k]);
	free(this->owner);
	free(this->ha_fifo);
	free(this);
}

kernel_vecsec_ipsec_t *
kernel_vecsec_ipsec_create(void)
{
	private_kernel_vecsec_ipsec_t *this;
	char *path, *owner;
	bool logged_down = FALSE;

	path = lib->settings->get_str(lib->settings, "%s.plugins.kernel-vecsec.socket",
				      DEFAULT_SOCKET, lib->ns);
	owner = lib->settings->get_str(lib->settings, "%s.plugins.kernel-vecsec.owner",
				       DEFAULT_OWNER, lib->ns);
	if (strlen(owner) == 0 || strlen(owner) > 31 ||
			strspn(owner, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789_.-") != strlen(owner)) {
		DBG1(DBG_KNL, "kernel-vecsec: owner '%s': 1..31 of [A-Za-z0-9_.-]", owner);
		return NULL;
	}
	INIT(this,
		.public = {
			.interface = {
				.get_features = _get_features,
				.get_spi = _get_spi,
				.get_cpi = _get_cpi,
				.add_sa = _add_sa,
				.update_sa = _update_sa,
				.query_sa = _query_sa,
				.del_sa = _del_sa,
				.flush_sas = _flush_sas,
				.add_policy = _add_policy,
				.query_policy = _query_policy,
				.del_policy = _del_policy,
				.flush_policies = _flush_policies,
				.bypass_socket = _bypass_socket,
				.enable_udp_decap = _enable_udp_decap,
				.destroy = _destroy,
			},
		},
		.ctl = kernel_vecsec_ctl_create(path, (u_int)lib->settings->get_int(lib->settings,
			"%s.plugins.kernel-vecsec.timeout", DEFAULT_TIMEOUT_MS, lib->ns)),
		.mutex = mutex_create(MUTEX_TYPE_DEFAULT),
		.sas = hashtable_create(sa_hash, sa_equals, 1024),
		.policies = hashtable_create(policy_hash, policy_equals, 1024),
		.owner = strdup(owner),
		.spi_min = (uint32_t)lib->settings->get_int(lib->settings, "%s.spi_min",
							   KERNEL_SPI_MIN, lib->ns),
		.spi_max = (uint32_t)lib->settings->get_int(lib->settings, "%s.spi_max",
							   KERNEL_SPI_MAX, lib->ns),
		.bypass_ports = linked_list_create(),
		.natt_ports = linked_list_create(),
		.ha_logger = {
			.log = ha_log,
			.get_level = ha_get_level,
		},
		.ha_mutex = mutex_create(MUTEX_TYPE_DEFAULT),
		.wake = { -1, -1 },
	);
	if (this->spi_min > this->spi_max) {
		uint32_t t = this->spi_min;

		this->spi_min = this->spi_max;
		this->spi_max = t;
	}
	if (this->spi_min < 0x100)
		this->spi_min = 0x100;  /* 1..255 are reserved (RFC 4303 2.1) */
	/*
	 * the ha plugin (docs/ha.md): the passive node installs inbound SAs whose
	 * SPIs the other node allocated (add_sa without get_spi: update = FALSE,
	 * accepted like any add_sa). Both nodes allocate on their own, so only
	 * disjoint ranges keep them from choosing the same SPI
	 */
	if (lib->settings->get_str(lib->settings, "%s.plugins.ha.local", NULL, lib->ns) &&
			this->spi_min == KERNEL_SPI_MIN && this->spi_max == KERNEL_SPI_MAX)
		DBG1(DBG_KNL, "kernel-vecsec: the ha plugin is configured and %s.spi_min/spi_max "
		     "are the defaults: give each node a range of its own, or both may allocate "
		     "the same inbound SPI", lib->ns);
	/*
	 * the ha plugin unloads itself without local and remote; it starts with
	 * no segment active (and says nothing): so does the gateway
	 */
	this->ha = lib->settings->get_str(lib->settings, "%s.plugins.ha.local", NULL, lib->ns) &&
		lib->settings->get_str(lib->settings, "%s.plugins.ha.remote", NULL, lib->ns) &&
		!streq(lib->settings->get_str(lib->settings, "%s.plugins.ha.load", "yes", lib->ns),
		       "no");
	if (this->ha) {
		if (pipe2(this->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
			DBG1(DBG_KNL, "kernel-vecsec: pipe: %s", strerror(errno));
			this->wake[0] = this->wake[1] = -1;
			destroy(this);
			return NULL;
		}
		this->ha_dirty = TRUE;
		this->ha_count = (u_int)lib->settings->get_int(lib->settings,
						"%s.plugins.ha.segment_count", 1, lib->ns);
		this->ha_count = max(1u, min(this->ha_count, (u_int)HA_SEG_MAX));
		this->ha_partner = -1;
		this->ha_fifo = strdup(lib->settings->get_str(lib->settings,
					"%s.plugins.kernel-vecsec.ha_fifo", HA_FIFO_DEFAULT, lib->ns));
		charon->bus->add_logger(charon->bus, &this->ha_logger);
		DBG1(DBG_KNL, "kernel-vecsec: the ha plugin is configured: vecsec-gw's segments "
		     "follow its log line 'HA segment N activated, now active: LIST'%s",
		     streq(VERSION, HA_WORDING_VERSION) ? "" : " (checked with strongSwan "
		     HA_WORDING_VERSION ", this is " VERSION ": if segments do not follow, check "
		     "that line in the ha plugin's ha_segments.c)");
	}
	/* first contact now, so charon starts on a clean gateway when it is up */
	this->watch_fd = connect_gw(this, &logged_down);
	this->watcher = thread_create((thread_main_t)watch_gw, this);
	if (!this->watcher) {
		destroy(this);
		return NULL;
	}
	DBG1(DBG_KNL, "kernel-vecsec: kernel_ipsec_t on vecsec-gw, control socket %s, owner "
	     "'%s'", path, owner);
	return &this->public;
}
