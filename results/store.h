/*
 * store.h - the run index: one SQLite table listing every result.json.
 *
 * The index is a convenience over the result files, never the only copy of
 * a figure: each row points at its result.json (path, UNIQUE) and caches the
 * few facts needed to list runs (kind, started_at, topology, a one-line
 * headline, the headline throughput and p99). Adding the same path again
 * refreshes its row and keeps its id.
 *
 * Database: env HCISWEEP_INDEX, else $XDG_DATA_HOME/hcisweep/index.sqlite,
 * else ~/.local/share/hcisweep/index.sqlite (directories are created).
 *
 * Errors: 0, or negative errno with a one-line message in err: -ENOENT (no
 * such run or file), -EINVAL (not a result, or a schema_version newer than
 * RES_SCHEMA_VERSION), -EIO (SQLite). A struct res_index is used by one
 * thread at a time.
 */
#ifndef HCI_STORE_H
#define HCI_STORE_H

struct res_index;

struct res_run {
        long long id;
        char kind[16];
        char started_at[40];
        char topology[32];  /* "" when the run has none */
        char headline[160]; /* "randread 4k: peak 12.3k IOPS @ QD 16" */
        double tps_or_iops; /* NAN when unknown */
        double p99_ms;      /* NAN when unknown */
        char path[4096];    /* absolute path of result.json */
};

/* The default database path (see above) into buf. 0 or -ENOENT when no home is known. */
int res_index_default_path(char *buf, size_t len, char *err, size_t errlen);

/* Open (creating file, directories and table) db_path, or the default when NULL. */
int res_index_open(const char *db_path, struct res_index **out, char *err, size_t errlen);
void res_index_close(struct res_index *ix);

/*
 * Facts of a result file without touching any index (kind, time, headline,
 * figures, absolute path; id = 0).
 */
int res_run_from_file(const char *result_json_path, struct res_run *out, char *err, size_t errlen);
/* The same from doc, the result already in memory that was saved at result_json_path. */
int res_run_from_doc(const char *result_json_path, const json_t *doc, struct res_run *out,
                     char *err, size_t errlen);

/* Read a result.json and add or refresh its row; *out (may be NULL) gets the row. */
int res_index_add(struct res_index *ix, const char *result_json_path, struct res_run *out,
                  char *err, size_t errlen);

/*
 * Runs matching kind and topology (NULL or "" = any), newest first. *runs is
 * a malloc'd array of *n rows (NULL when none); the caller frees it.
 */
int res_index_list(struct res_index *ix, const char *kind, const char *topology,
                   struct res_run **runs, unsigned *n, char *err, size_t errlen);

/* 1 when s names a run by its index id (all digits), 0 when it is a path. */
int res_index_is_id(const char *s);

/* One run by id (all digits) or by path of its result.json. -ENOENT when not indexed. */
int res_index_find(struct res_index *ix, const char *id_or_path, struct res_run *out, char *err,
                   size_t errlen);

/*
 * Open the default index, add one result and close: what a measuring
 * command calls after writing its result. 0 or negative errno with err set.
 */
int res_index_register(const char *result_json_path, char *err, size_t errlen);
/* The same for doc, the result just saved at result_json_path: not read back (a merge of
 * 20k hosts would hold its result twice). */
int res_index_register_doc(const char *result_json_path, const json_t *doc, char *err,
                           size_t errlen);

#endif
