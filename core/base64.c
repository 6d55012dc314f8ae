/*
 * base64.c - base64 both ways (base64.h). Decoding is strict about the
 * alphabet, so a reply mangled on the way is an error and not silently
 * different bytes.
 */
#include "core/base64.h"

#include <errno.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t b64_encode(const void *in, size_t n, char *out)
{
        const unsigned char *p = in;
        size_t o = 0;

        for (size_t i = 0; i < n; i += 3) {
                unsigned long v = (unsigned long)p[i] << 16;

                if (i + 1 < n)
                        v |= (unsigned long)p[i + 1] << 8;
                if (i + 2 < n)
                        v |= p[i + 2];
                out[o++] = alphabet[(v >> 18) & 63];
                out[o++] = alphabet[(v >> 12) & 63];
                out[o++] = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
                out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
        }
        out[o] = '\0';
        return o;
}

/* The value of one base64 character, -1 if it is not one. */
static int value(char c)
{
        if (c >= 'A' && c <= 'Z')
                return c - 'A';
        if (c >= 'a' && c <= 'z')
                return c - 'a' + 26;
        if (c >= '0' && c <= '9')
                return c - '0' + 52;
        return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int b64_decode(const char *in, size_t n, void *out, size_t *outlen)
{
        unsigned char *q = out;
        unsigned long acc = 0;
        unsigned bits = 0, pad = 0, chars = 0;
        size_t o = 0;

        for (size_t i = 0; i < n; i++) {
                char c = in[i];
                int v;

                if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
                        continue;
                if (c == '=') {
                        pad++;
                        continue;
                }
                v = value(c);
                if (v < 0 || pad)
                        return -EINVAL;
                acc = (acc << 6) | (unsigned)v;
                bits += 6;
                chars++;
                if (bits >= 8) {
                        bits -= 8;
                        q[o++] = (unsigned char)(acc >> bits);
                        acc &= (1UL << bits) - 1;
                }
        }
        /* one character alone carries no whole byte; padding completes a quad only */
        if (chars % 4 == 1 || pad > 2 || (pad && (chars + pad) % 4))
                return -EINVAL;
        *outlen = o;
        return 0;
}
