/*
 * rand.h - the random numbers of the OLTP workloads, as sysbench defines them.
 *
 * A fast per-thread generator (xoroshiro128+) and the distributions of
 * sysbench's --rand-type: uniform, gaussian, special (sysbench 1.0's
 * default: a hot spot of rand_spec_pct % of the range receives
 * rand_spec_res % of the draws, the rest is a bell curve), pareto and
 * zipfian, with sysbench's parameters and defaults. Row ids drawn with the
 * configured distribution therefore hit the same rows as sysbench would.
 *
 * A struct oltp_rng is owned by one thread (or one connection); the
 * distribution parameters (struct oltp_dist) are read-only once set up and
 * shared by every thread.
 */
#ifndef HCI_OLTP_RAND_H
#define HCI_OLTP_RAND_H

#include <stdint.h>

enum oltp_dist_type {
        OLTP_DIST_UNIFORM,
        OLTP_DIST_GAUSSIAN,
        OLTP_DIST_SPECIAL,
        OLTP_DIST_PARETO,
        OLTP_DIST_ZIPFIAN,
};

/* NULL-terminated names in enum order, for the options table. */
extern const char *const oltp_dist_names[];

struct oltp_rng {
        uint64_t s[2];
};

struct oltp_dist {
        enum oltp_dist_type type;
        unsigned spec_iter; /* sysbench --rand-spec-iter, default 12 */
        unsigned spec_pct;  /* --rand-spec-pct, default 1 */
        unsigned spec_res;  /* --rand-spec-res, default 75 */
        double pareto_h;    /* --rand-pareto-h, default 0.2 */
        double zipf_exp;    /* --rand-zipfian-exp, default 0.8 */
        /* derived by oltp_dist_init */
        double iter_mult, pct_mult, pct2_mult, res_mult, pareto_power, zipf_s, zipf_h1;
};

/* Seed a generator (any seed; 0 is fine). */
void oltp_rng_seed(struct oltp_rng *r, uint64_t seed);

/* 64 random bits / a double in [0, 1). Owner thread only. */
uint64_t oltp_rng_next(struct oltp_rng *r);
double oltp_rng_double(struct oltp_rng *r);

/* Fill the defaults and derive constants. 0, or -EINVAL with err set. */
void oltp_dist_defaults(struct oltp_dist *d, enum oltp_dist_type type);
int oltp_dist_init(struct oltp_dist *d, char *err, size_t errlen);

/* Uniform integer in [a, b]. */
uint32_t oltp_rand_uniform(struct oltp_rng *r, uint32_t a, uint32_t b);

/* Integer in [a, b] drawn from the configured distribution (sysbench.rand.default). */
uint32_t oltp_rand_dist(struct oltp_rng *r, const struct oltp_dist *d, uint32_t a, uint32_t b);

/*
 * sysbench.rand.string: every '#' of tmpl becomes a random digit, other
 * characters are copied; writes strlen(tmpl) bytes (no NUL) into out.
 */
void oltp_rand_str(struct oltp_rng *r, const char *tmpl, unsigned len, char *out);

/* The c and pad templates of sysbench: 10 (119 chars) and 5 (59 chars) groups of 11 digits. */
extern const char oltp_c_tmpl[];
extern const char oltp_pad_tmpl[];
#define OLTP_C_LEN   119
#define OLTP_PAD_LEN 59

#endif
