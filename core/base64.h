/*
 * base64.h - RFC 4648 base64 (the standard alphabet, '=' padding), as the
 * QEMU guest agent carries bytes in JSON: a command's standard input and
 * output (guest-exec, guest-exec-status) and file contents
 * (guest-file-write). Any thread; no state.
 */
#ifndef HCI_BASE64_H
#define HCI_BASE64_H

#include <stddef.h>

/* Characters b64_encode() writes for n bytes, without the NUL. */
#define B64_ENCODED_LEN(n) ((((n) + 2) / 3) * 4)

/* Encode in[0..n) into out, which holds B64_ENCODED_LEN(n) + 1 characters
 * (NUL-terminated). Returns the length written. */
size_t b64_encode(const void *in, size_t n, char *out);

/*
 * Decode the base64 text in[0..n) into out, which holds at least n / 4 * 3
 * + 3 bytes; *outlen is the number of bytes written. Whitespace (line
 * breaks of a wrapped encoding) is skipped and padding may be left out.
 * -EINVAL on any other character, on data after padding, or on a length
 * no encoding has.
 */
int b64_decode(const char *in, size_t n, void *out, size_t *outlen);

#endif
