#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>
/* mallopt: the server's large request bodies get mappings of their own (HTTPServer). */
#include <malloc.h>

/* MHD_get_connection_info is C-variadic and cannot be called from Swift. */
static inline const union MHD_ConnectionInfo *
custos_mhd_connection_info(struct MHD_Connection *connection, enum MHD_ConnectionInfoType type) {
    return MHD_get_connection_info(connection, type);
}
