/* The peer for bench/http.sh: a raw libmicrohttpd server answering GET /healthz with a
 * constant JSON body, started with the daemon options of custos serve that shape its event
 * loops (internal polling thread + epoll + ITC + turbo, thread pool, connection limit and
 * timeout, memory limit), answering on the handler's second call as Custos does so that
 * keep-alive works. What it leaves out is what custos serve needs for its own work:
 * suspend/resume (its workers), the completion and unescape callbacks, and the
 * X-Request-Id and Cache-Control headers of every answer (suspend/resume and the two
 * headers, added to this peer: about 4% of its throughput). Usage: mhd_hello PORT THREADS */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"status\":\"ok\",\"version\":\"0.1.0\"}";

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    static int marker;
    (void)cls; (void)version; (void)upload_data;
    if (*con_cls == NULL) { *con_cls = &marker; return MHD_YES; }
    if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }
    int found = strcmp(method, "GET") == 0 && strcmp(url, "/healthz") == 0;
    struct MHD_Response *response = MHD_create_response_from_buffer(
        found ? sizeof(body) - 1 : 0, (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result result = MHD_queue_response(connection, found ? 200 : 404, response);
    MHD_destroy_response(response);
    return result;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s PORT THREADS\n", argv[0]); return 2; }
    unsigned int port = (unsigned int)atoi(argv[1]);
    unsigned int threads = (unsigned int)atoi(argv[2]);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_TURBO, (uint16_t)port, NULL, NULL,
        &handle, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_LIMIT, 1000u,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, 0u,
        MHD_OPTION_CONNECTION_TIMEOUT, 30u,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(8 * 1024 + 32 * 1024 + 16 * 1024),
        MHD_OPTION_END);
    if (daemon == NULL) { fprintf(stderr, "cannot start on port %u\n", port); return 1; }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int signal_number;
    sigwait(&set, &signal_number);
    MHD_stop_daemon(daemon);
    return 0;
}
