/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw Prometheus metrics (--metrics ADDR:PORT): a control-plane
 * thread, "gw-metrics", serves GET /metrics in Prometheus's text
 * exposition format (0.0.4): per SA packets, bytes and drops by reason,
 * per port and per worker counters, gateway-wide totals. The counters are
 * the workers' own since the start (an SA's since it was added): `reset`
 * rebases the other views only, so a Prometheus counter never goes back
 * but when the gateway restarts. Metric names: docs/operations.md,
 * "Prometheus".
 *
 * One client at a time, each given METRICS_IO_MS to send its request
 * (at most METRICS_REQ_MAX bytes: a request line and headers, no body) and
 * to take the answer; anything else is answered 400, 404, 405 or 431 and
 * closed. The body is built under the control-plane lock, like every view.
 */
#define _GNU_SOURCE             /* pthread_setname_np() */

#include "gw_dp.h"
#include "gw_log.h"
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>

#define METRICS_REQ_MAX 4096            /* bytes of request line and headers */
#define METRICS_IO_MS 2000              /* a client's time to ask, and to read */
#define METRICS_POLL_MS 100             /* the stop flag is seen within this */

static int listen_fd = -1;
static pthread_t metrics_thread;
static bool running;
static bool metrics_stop;              /* __atomic */
static uint64_t served;

/* ---- ADDR:PORT ---------------------------------------------------------------- */

int
gw_metrics_parse(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(spec, ':');
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;
	size_t hl;
	char *end;
	long port;

	if (colon == NULL || colon == spec)
		return -EINVAL;
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || colon[1] == '\0' || port < 1 || port > 65535)
		return -EINVAL;
	hl = (size_t)(colon - spec);
	if (spec[0] == '[') {           /* [IPv6]:PORT */
		if (hl < 3 || spec[hl - 1] != ']')
			return -EINVAL;
		spec++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, spec, hl);
	host[hl] = '\0';
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || ai == NULL)
		return -EINVAL;
	if (ss != NULL) {
		memcpy(ss, ai->ai_addr, ai->ai_addrlen);
		*len = ai->ai_addrlen;
	}
	freeaddrinfo(ai);
	return 0;
}

/* ---- the body ----------------------------------------------------------------- */

static void
head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP vecsec_gw_%s %s\n# TYPE vecsec_gw_%s %s\n", name, help, name, type);
}

/* A label value: the views' values are names and numbers; escaped all the same. */
static void
label(FILE *f, const char *k, const char *v, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", k);
	for (; *v != '\0'; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

static const char *
sa_dir(const struct gw_sa *s)
{
	return s->dir == GW_DIR_IN ? "in" : "out";
}

static void
sa_metrics(FILE *f)
{
	static const char *const ctr[3] = { "sa_packets_total", "sa_bytes_total",
					    "sa_dropped_packets_total" };
	static const char *const help[3] = {
		"Packets through the SA since it was added (outbound: ESP packets made; "
		"inbound: packets decrypted and authenticated)",
		"Bytes of those packets from their IP header on (outbound: the ESP packet; "
		"inbound: the decrypted packet)",
		"Packets of the SA dropped, by reason (only reasons that occurred)" };
	unsigned int n[2] = { 0, 0 };

	head(f, "sa_info", "gauge", "An SA of the gateway: its algorithms and where it runs");
	for (unsigned int i = 0; i < gw.nb_sa; i++) {
		const struct gw_sa *s = &gw.sa[i];
		const struct gw_sa_cold *c = &gw.sa_cold[i];
		char spi[16];

		if (!s->active)
			continue;
		n[s->dir == GW_DIR_IN]++;
		snprintf(spi, sizeof(spi), "%u", s->spi);
		fputs("vecsec_gw_sa_info{", f);
		label(f, "dir", sa_dir(s), true);
		label(f, "spi", spi, false);
		label(f, "algo", c->algo_name, false);
		label(f, "integ", c->integ_name != NULL ? c->integ_name : "aead", false);
		label(f, "cryptodev", gw_sa_cdev_name(&gw, s), false);
		label(f, "origin", gw_ctrl_origin(c->line) ? "control" : "file", false);
		fputs("} 1\n", f);
	}
	head(f, "sas", "gauge", "SAs in the table, by direction");
	fprintf(f, "vecsec_gw_sas{dir=\"out\"} %u\nvecsec_gw_sas{dir=\"in\"} %u\n", n[0], n[1]);
	for (unsigned int k = 0; k < 3; k++) {
		head(f, ctr[k], "counter", help[k]);
		for (unsigned int i = 0; i < gw.nb_sa; i++) {
			const struct gw_sa *s = &gw.sa[i];
			struct gw_sa_stats st;

			if (!s->active)
				continue;
			gw_stats_sa_sum(&gw, i, &st);
			if (k < 2) {
				fprintf(f, "vecsec_gw_%s{dir=\"%s\",spi=\"%u\"} %" PRIu64 "\n",
					ctr[k], sa_dir(s), s->spi, k == 0 ? st.pkts : st.bytes);
				continue;
			}
			for (unsigned int d = 0; d < GW_DROP_MAX; d++)
				if (st.drops[d] != 0)
					fprintf(f, "vecsec_gw_%s{dir=\"%s\",spi=\"%u\","
						"reason=\"%s\"} %" PRIu64 "\n", ctr[k],
						sa_dir(s), s->spi, gw_drop_names[d],
						st.drops[d]);
		}
	}
}

static void
port_metrics(FILE *f, const struct gw_stats *t)
{
	static const char *const why[4] = { "imissed", "rx_nombuf", "ierrors", "oerrors" };

	head(f, "port_rx_packets_total", "counter", "Packets the workers took from the port");
	for (uint16_t p = 0; p < gw.nb_ports; p++)
		fprintf(f, "vecsec_gw_port_rx_packets_total{port=\"%u\",side=\"%s\"} %" PRIu64 "\n",
			p, gw.port[p].esp_side ? "esp" : "clear", t->port[p].rx);
	head(f, "port_tx_packets_total", "counter", "Packets the workers sent on the port");
	for (uint16_t p = 0; p < gw.nb_ports; p++)
		fprintf(f, "vecsec_gw_port_tx_packets_total{port=\"%u\",side=\"%s\"} %" PRIu64 "\n",
			p, gw.port[p].esp_side ? "esp" : "clear", t->port[p].tx);
	head(f, "port_dropped_packets_total", "counter",
	     "The port driver's own drops (ethdev): rx queue full, no mbuf, rx and tx errors");
	for (uint16_t p = 0; p < gw.nb_ports; p++) {
		struct rte_eth_stats es;
		uint64_t v[4];

		if (rte_eth_stats_get(p, &es) != 0)
			continue;
		v[0] = es.imissed;
		v[1] = es.rx_nombuf;
		v[2] = es.ierrors;
		v[3] = es.oerrors;
		for (unsigned int k = 0; k < 4; k++)
			fprintf(f, "vecsec_gw_port_dropped_packets_total{port=\"%u\","
				"reason=\"%s\"} %" PRIu64 "\n", p, why[k], v[k]);
	}
}

static void
worker_metrics(FILE *f)
{
	static const char *const name[4] = { "worker_rx_packets_total", "worker_tx_packets_total",
					     "worker_polls_total", "worker_busy_cycles_total" };
	static const char *const help[4] = {
		"Packets the worker took from its rx queues", "Packets the worker sent",
		"Poll loops the worker ran",
		"TSC cycles the worker spent in polls that moved packets" };

	for (unsigned int k = 0; k < 4; k++) {
		head(f, name[k], "counter", help[k]);
		for (unsigned int w = 0; w < gw.nb_workers; w++) {
			const struct gw_worker *wk = &gw.worker[w];
			uint64_t v = 0;

			if (k < 2)
				for (unsigned int p = 0; p < GW_MAX_PORTS; p++)
					v += k == 0 ? wk->st.port[p].rx : wk->st.port[p].tx;
			else
				v = k == 2 ? __atomic_load_n(&wk->polls, __ATOMIC_RELAXED) :
					wk->busy_cycles;
			fprintf(f, "vecsec_gw_%s{worker=\"%u\",lcore=\"%u\"} %" PRIu64 "\n",
				name[k], w, wk->lcore, v);
		}
	}
}

/* The whole exposition, under the control-plane lock. */
static void
metrics_body(FILE *f)
{
	struct gw_stats t;

	gw_stats_sum(&gw, &t);
	head(f, "uptime_seconds", "gauge", "Seconds since the gateway started");
	fprintf(f, "vecsec_gw_uptime_seconds %.3f\n", gw_stats_uptime());
	head(f, "esp_packets_total", "counter", "ESP packets made (out) and taken in (in)");
	fprintf(f, "vecsec_gw_esp_packets_total{dir=\"out\"} %" PRIu64 "\n"
		"vecsec_gw_esp_packets_total{dir=\"in\"} %" PRIu64 "\n", t.esp_out, t.esp_in);
	head(f, "bypass_packets_total", "counter", "Packets a bypass rule let through");
	fprintf(f, "vecsec_gw_bypass_packets_total %" PRIu64 "\n", t.bypass);
	head(f, "host_packets_total", "counter", "Frames handed to the host stack (to_host) "
	     "and sent for it (from_host)");
	fprintf(f, "vecsec_gw_host_packets_total{dir=\"to_host\"} %" PRIu64 "\n"
		"vecsec_gw_host_packets_total{dir=\"from_host\"} %" PRIu64 "\n", t.host_in,
		t.host_out);
	head(f, "dropped_packets_total", "counter", "Packets the gateway dropped, by reason");
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		fprintf(f, "vecsec_gw_dropped_packets_total{reason=\"%s\"} %" PRIu64 "\n",
			gw_drop_names[d], t.drops[d]);
	port_metrics(f, &t);
	worker_metrics(f);
	sa_metrics(f);
}

/* ---- HTTP, bounded ------------------------------------------------------------ */

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Wait for fd to be ready for ev until deadline (ms); false on time out or hang-up. */
static bool
wait_fd(int fd, short ev, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	uint64_t now = mono_ms();

	if (now >= deadline)
		return false;
	return poll(&p, 1, (int)(deadline - now)) == 1 && (p.revents & ev) != 0;
}

static void
send_all(int fd, const char *p, size_t n, uint64_t deadline)
{
	while (n != 0 && wait_fd(fd, POLLOUT, deadline)) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return;
		if (k > 0) {
			p += k;
			n -= (size_t)k;
		}
	}
}

static void
answer(int fd, const char *status, const char *type, const char *body, size_t len,
       uint64_t deadline)
{
	char h[256];
	int hl = snprintf(h, sizeof(h), "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu"
			  "\r\nConnection: close\r\n\r\n", status, type, len);

	send_all(fd, h, (size_t)hl, deadline);
	send_all(fd, body, len, deadline);
}

/*
 * An error answer, then the rest of what the client sent is read and
 * dropped (up to the deadline) before the close: closing with unread input
 * would reset the connection, and the client could lose the answer.
 */
static void
answer_error(int fd, const char *status, uint64_t deadline)
{
	char body[64], sink[1024];
	int n = snprintf(body, sizeof(body), "%s\n", status);

	answer(fd, status, "text/plain; charset=utf-8", body, (size_t)n, deadline);
	shutdown(fd, SHUT_WR);
	while (wait_fd(fd, POLLIN, deadline) && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
}

/*
 * Read the request up to its blank line: its length, 0 if cut short, -1 if
 * too long, -2 if it holds a NUL (no HTTP request does).
 */
static ssize_t
read_request(int fd, char *req, uint64_t deadline)
{
	size_t n = 0;

	while (wait_fd(fd, POLLIN, deadline)) {
		ssize_t k = recv(fd, req + n, METRICS_REQ_MAX - n, MSG_DONTWAIT);

		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (k <= 0)
			return 0;
		if (memchr(req + n, '\0', (size_t)k) != NULL)
			return -2;
		n += (size_t)k;
		req[n] = '\0';
		if (strstr(req, "\r\n\r\n") != NULL || strstr(req, "\n\n") != NULL)
			return (ssize_t)n;
		if (n == METRICS_REQ_MAX)
			return -1;
	}
	return 0;
}

static void
serve(int fd)
{
	uint64_t deadline = mono_ms() + METRICS_IO_MS;
	char req[METRICS_REQ_MAX + 1], method[8], path[64];
	char *body = NULL;
	size_t len = 0;
	ssize_t n = read_request(fd, req, deadline);
	FILE *f;

	if (n <= 0) {
		if (n < 0)
			answer_error(fd, n == -1 ? "431 Request Header Fields Too Large" :
				     "400 Bad Request", deadline);
		return;
	}
	if (sscanf(req, "%7s %63s HTTP/1.%*c", method, path) != 2) {
		answer_error(fd, "400 Bad Request", deadline);
		return;
	}
	if (strcmp(method, "GET") != 0) {
		answer_error(fd, "405 Method Not Allowed", deadline);
		return;
	}
	if (strcmp(path, "/metrics") != 0 && strncmp(path, "/metrics?", 9) != 0) {
		answer_error(fd, "404 Not Found", deadline);
		return;
	}
	f = open_memstream(&body, &len);
	if (f == NULL) {
		answer_error(fd, "500 Internal Server Error", deadline);
		return;
	}
	gw_cp_lock();
	metrics_body(f);
	gw_cp_unlock();
	if (fclose(f) != 0) {
		free(body);
		answer_error(fd, "500 Internal Server Error", deadline);
		return;
	}
	/* the time to read the answer starts now, not when the request came */
	answer(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", body, len,
	       mono_ms() + METRICS_IO_MS);
	free(body);
	served++;
}

static void *
metrics_main(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&metrics_stop, __ATOMIC_RELAXED)) {
		struct pollfd p = { .fd = listen_fd, .events = POLLIN };
		int fd;

		if (poll(&p, 1, METRICS_POLL_MS) != 1)
			continue;
		fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		serve(fd);
		close(fd);
	}
	return NULL;
}

int
gw_metrics_start(const char *spec)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int one = 1, rc;

	if (gw_metrics_parse(spec, &ss, &sl) != 0) {
		GW_LOG(ERR, "--metrics %s: not ADDR:PORT (an IPv4 address, or [IPv6])", spec);
		return -EINVAL;
	}
	listen_fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 ||
	    setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(listen_fd, (struct sockaddr *)&ss, sl) != 0 || listen(listen_fd, 8) != 0) {
		rc = -errno;
		GW_LOG(ERR, "--metrics %s: %s", spec, strerror(errno));
		gw_metrics_stop();
		return rc;
	}
	__atomic_store_n(&metrics_stop, false, __ATOMIC_RELAXED);
	rc = pthread_create(&metrics_thread, NULL, metrics_main, NULL);
	if (rc != 0) {
		GW_LOG(ERR, "--metrics: no thread: %s", strerror(rc));
		gw_metrics_stop();
		return -rc;
	}
	pthread_setname_np(metrics_thread, "gw-metrics");
	running = true;
	GW_LOG(INFO, "Prometheus metrics on http://%s/metrics", spec);
	return 0;
}

void
gw_metrics_stop(void)
{
	if (running) {
		__atomic_store_n(&metrics_stop, true, __ATOMIC_RELAXED);
		pthread_join(metrics_thread, NULL);
		running = false;
		GW_LOG(DEBUG, "metrics: %" PRIu64 " scrapes served", served);
	}
	if (listen_fd >= 0) {
		close(listen_fd);
		listen_fd = -1;
	}
}
