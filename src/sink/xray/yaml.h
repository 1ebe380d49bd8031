/* `llvm-xray convert --output-format=yaml`, byte for byte (see yaml.c). */
#ifndef TMX_SINK_XRAY_YAML_H
#define TMX_SINK_XRAY_YAML_H

#include <stddef.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

struct tmx_source;
struct tmx_xray_yaml;

/*
 * `src` (may be NULL) gives the file header when the log has no record;
 * otherwise it comes from the first message's trace.
 */
struct tmx_xray_yaml *tmx_xray_yaml_new(int fd, const struct tmx_source *src);
int tmx_xray_yaml_consume(struct tmx_xray_yaml *y, const struct tmx_msg *msg,
			  struct tmx_error *err);
/* Ends the document and flushes. */
int tmx_xray_yaml_finish(struct tmx_xray_yaml *y, struct tmx_error *err);
void tmx_xray_yaml_free(struct tmx_xray_yaml *y);

/*
 * llvm's YAML scalar for `s` (yaml::needsQuotes + Output::scalarString):
 * plain, 'single' or "double" with yaml::escape.  Into `out` (capacity
 * `cap`; the result is cut there); returns the full length.  For tests.
 */
size_t tmx_xray_yaml_scalar(const char *s, size_t len, char *out, size_t cap);

#endif
