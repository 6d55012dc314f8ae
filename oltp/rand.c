/*
 * rand.c - sysbench's random distributions over a per-thread xoroshiro128+.
 *
 * The formulas follow sysbench 1.0 (src/sb_rand.c) so that a run with the
 * same --rand-type touches the same share of rows: the point of matching
 * them is that results compare with sysbench's, not that the streams are
 * identical (seeding differs). Zipfian uses rejection-inversion sampling
 * (Hörmann and Derflinger, 1996) over the integral H of h(x) = x^-q, which
 * needs no table and so costs nothing per range size.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "oltp/rand.h"

const char *const oltp_dist_names[] = {"uniform", "gaussian", "special", "pareto", "zipfian", NULL};

const char oltp_c_tmpl[] = "###########-###########-###########-###########-###########-"
                           "###########-###########-###########-###########-###########";
const char oltp_pad_tmpl[] = "###########-###########-###########-###########-###########";

static uint64_t rotl(uint64_t x, int k)
{
        return (x << k) | (x >> (64 - k));
}

/* splitmix64 spreads any seed (even 0) over both words of the state. */
static uint64_t splitmix(uint64_t *x)
{
        uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

void oltp_rng_seed(struct oltp_rng *r, uint64_t seed)
{
        r->s[0] = splitmix(&seed);
        r->s[1] = splitmix(&seed);
}

uint64_t oltp_rng_next(struct oltp_rng *r)
{
        uint64_t s0 = r->s[0], s1 = r->s[1], out = s0 + s1;

        s1 ^= s0;
        r->s[0] = rotl(s0, 24) ^ s1 ^ (s1 << 16);
        r->s[1] = rotl(s1, 37);
        return out;
}

double oltp_rng_double(struct oltp_rng *r)
{
        return (double)(oltp_rng_next(r) >> 11) * 0x1.0p-53;
}

/* H(x) = (x^(1-q) - 1) / (1 - q), written so that q -> 1 tends to log(x). */
static double zipf_H(double x, double q)
{
        double lx = log(x), t = (1 - q) * lx;

        return (fabs(t) > 1e-8 ? expm1(t) / t : 1 + t / 2 + t * t / 6) * lx;
}

static double zipf_H_inv(double y, double q)
{
        double t = y * (1 - q);

        if (t < -1) /* rounding can push it past the domain edge */
                t = -1;
        return exp((fabs(t) > 1e-8 ? log1p(t) / t : 1 - t / 2 + t * t / 3) * y);
}

static double zipf_h(double x, double q)
{
        return exp(-q * log(x));
}

void oltp_dist_defaults(struct oltp_dist *d, enum oltp_dist_type type)
{
        d->type = type;
        d->spec_iter = 12;
        d->spec_pct = 1;
        d->spec_res = 75;
        d->pareto_h = 0.2;
        d->zipf_exp = 0.8;
}

int oltp_dist_init(struct oltp_dist *d, char *err, size_t errlen)
{
        if (d->spec_iter == 0 || d->spec_pct > 100 || d->spec_res >= 100) {
                snprintf(err, errlen, "special distribution: need iter > 0, pct <= 100, res < 100");
                return -EINVAL;
        }
        if (d->pareto_h <= 0 || d->pareto_h >= 1 || d->zipf_exp < 0) {
                snprintf(err, errlen, "need 0 < pareto h < 1 and zipfian exponent >= 0");
                return -EINVAL;
        }
        d->iter_mult = 1.0 / d->spec_iter;
        d->pct_mult = d->spec_pct / 100.0;
        d->pct2_mult = d->spec_pct / 200.0;
        d->res_mult = 100.0 / (100.0 - d->spec_res);
        d->pareto_power = log(d->pareto_h) / log(1.0 - d->pareto_h);
        /* the acceptance shortcut s and H(1.5) - h(1) of the sampler */
        d->zipf_s = 2 - zipf_H_inv(zipf_H(2.5, d->zipf_exp) - zipf_h(2, d->zipf_exp), d->zipf_exp);
        d->zipf_h1 = zipf_H(1.5, d->zipf_exp) - 1;
        return 0;
}

uint32_t oltp_rand_uniform(struct oltp_rng *r, uint32_t a, uint32_t b)
{
        return a + (uint32_t)(oltp_rng_double(r) * ((double)b - a + 1));
}

static uint32_t rand_gaussian(struct oltp_rng *r, const struct oltp_dist *d, uint32_t a, uint32_t b)
{
        double span = (double)b - a + 1, sum = 0;

        for (unsigned i = 0; i < d->spec_iter; i++)
                sum += oltp_rng_double(r) * span;
        return a + (uint32_t)(sum * d->iter_mult);
}

/*
 * sysbench 1.0's default: one uniform draw decides between the bell curve
 * over the whole range (100 - res % of draws) and the hot spot, pct % of
 * the range centred in the middle. The same draw then places the value in
 * the hot spot, as sysbench does (so only its upper part is hit).
 */
static uint32_t rand_special(struct oltp_rng *r, const struct oltp_dist *d, uint32_t a, uint32_t b)
{
        double t = (double)b - a, u = oltp_rng_double(r), pos, sum = 0;

        if (u * t * d->res_mult < t) {
                for (unsigned i = 0; i < d->spec_iter; i++)
                        sum += oltp_rng_double(r);
                return a + (uint32_t)(sum * t * d->iter_mult);
        }
        pos = u * (t * d->pct_mult + 1) + t / 2 - t * d->pct2_mult;
        return a + (uint32_t)pos;
}

static uint32_t rand_pareto(struct oltp_rng *r, const struct oltp_dist *d, uint32_t a, uint32_t b)
{
        return a + (uint32_t)(((double)b - a + 1) * pow(oltp_rng_double(r), d->pareto_power));
}

/* k in [1, n] with P(k) proportional to k^-q. */
static uint32_t rand_zipf_k(struct oltp_rng *r, const struct oltp_dist *d, uint32_t n)
{
        double q = d->zipf_exp, hn = zipf_H(n + 0.5, q);

        for (;;) {
                double y = hn + oltp_rng_double(r) * (d->zipf_h1 - hn);
                double x = zipf_H_inv(y, q);
                uint32_t k = (uint32_t)(x + 0.5);

                if (k < 1)
                        k = 1;
                else if (k > n)
                        k = n;
                if (k - x <= d->zipf_s || y >= zipf_H(k + 0.5, q) - zipf_h(k, q))
                        return k;
        }
}

uint32_t oltp_rand_dist(struct oltp_rng *r, const struct oltp_dist *d, uint32_t a, uint32_t b)
{
        switch (d->type) {
        case OLTP_DIST_GAUSSIAN:
                return rand_gaussian(r, d, a, b);
        case OLTP_DIST_SPECIAL:
                return rand_special(r, d, a, b);
        case OLTP_DIST_PARETO:
                return rand_pareto(r, d, a, b);
        case OLTP_DIST_ZIPFIAN:
                return a + rand_zipf_k(r, d, b - a + 1) - 1;
        case OLTP_DIST_UNIFORM:
        default:
                return oltp_rand_uniform(r, a, b);
        }
}

void oltp_rand_str(struct oltp_rng *r, const char *tmpl, unsigned len, char *out)
{
        uint64_t bits = 0;
        unsigned left = 0;

        /* one 64-bit draw serves several digits: 16 bits each is unbiased enough (<1e-4) */
        for (unsigned i = 0; i < len; i++) {
                if (tmpl[i] != '#') {
                        out[i] = tmpl[i];
                        continue;
                }
                if (!left) {
                        bits = oltp_rng_next(r);
                        left = 4;
                }
                out[i] = (char)('0' + ((bits & 0xffff) * 10 >> 16));
                bits >>= 16;
                left--;
        }
}
