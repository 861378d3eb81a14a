/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw readiness for systemd: sd_notify(3) without libsystemd.
 * READY=1 once the gateway forwards, RELOADING=1 / READY=1 around a reload,
 * STOPPING=1 on the way out, as datagrams to $NOTIFY_SOCKET (a path, or '@'
 * for the abstract namespace), for systemd's Type=notify.
 */
#include "gw_dp.h"
#include "gw_log.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

void
gw_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (path == NULL || (path[0] != '/' && path[0] != '@') || strlen(path) < 2 ||
	    strlen(path) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, strlen(path));
	if (path[0] == '@')
		sa.sun_path[0] = '\0';          /* abstract namespace */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len) < 0)
		GW_LOG(WARNING, "sd_notify to %s: %s", path, strerror(errno));
	close(fd);
}
