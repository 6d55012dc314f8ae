/*
 * store.c - the run index in SQLite (see store.h).
 *
 * Several measuring commands may register results at the same moment, so
 * the connection waits on a locked database (busy timeout) instead of
 * failing, and an add is one INSERT ... ON CONFLICT statement, which keeps
 * a path's id stable when it is added again.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/resfile.h"
#include "results/store.h"

#define BUSY_TIMEOUT_MS 10000
#define RUN_COLS        "id, kind, started_at, topology, headline, tps_or_iops, p99_ms, path"

struct res_index {
        sqlite3 *db;
};

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, kind TEXT, started_at TEXT, "
    "topology TEXT, headline TEXT, tps_or_iops REAL, p99_ms REAL, path TEXT UNIQUE);"
    "CREATE INDEX IF NOT EXISTS runs_started ON runs(started_at);";

static int db_fail(sqlite3 *db, const char *what, char *err, size_t errlen)
{
        snprintf(err, errlen, "run index: %s: %s", what, db ? sqlite3_errmsg(db) : "no database");
        return -EIO;
}

int res_index_default_path(char *buf, size_t len, char *err, size_t errlen)
{
        const char *env = getenv("HCISWEEP_INDEX"), *xdg = getenv("XDG_DATA_HOME");
        const char *home = getenv("HOME");

        if (env && *env)
                snprintf(buf, len, "%s", env);
        else if (xdg && *xdg)
                snprintf(buf, len, "%s/hcisweep/index.sqlite", xdg);
        else if (home && *home)
                snprintf(buf, len, "%s/.local/share/hcisweep/index.sqlite", home);
        else {
                snprintf(err, errlen, "run index: set HCISWEEP_INDEX, XDG_DATA_HOME or HOME");
                return -ENOENT;
        }
        return 0;
}

static int make_parent(const char *path, char *err, size_t errlen)
{
        char dir[PATH_MAX];
        char *slash;

        snprintf(dir, sizeof(dir), "%s", path);
        slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return 0;
        *slash = '\0';
        return res_mkdirs(dir, err, errlen);
}

int res_index_open(const char *db_path, struct res_index **out, char *err, size_t errlen)
{
        char path[PATH_MAX];
        struct res_index *ix;
        int rc;

        *out = NULL;
        if (db_path)
                snprintf(path, sizeof(path), "%s", db_path);
        else if ((rc = res_index_default_path(path, sizeof(path), err, errlen)))
                return rc;
        if ((rc = make_parent(path, err, errlen)))
                return rc;
        ix = calloc(1, sizeof(*ix));
        if (!ix) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        if (sqlite3_open_v2(path, &ix->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
            SQLITE_OK) {
                rc = db_fail(ix->db, path, err, errlen);
                goto out;
        }
        sqlite3_busy_timeout(ix->db, BUSY_TIMEOUT_MS);
        if (sqlite3_exec(ix->db, schema_sql, NULL, NULL, NULL) != SQLITE_OK) {
                rc = db_fail(ix->db, path, err, errlen);
                goto out;
        }
        *out = ix;
        return 0;
out:
        res_index_close(ix);
        return rc;
}

void res_index_close(struct res_index *ix)
{
        if (!ix)
                return;
        sqlite3_close(ix->db);
        free(ix);
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
        if (s && *s)
                sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
        else
                sqlite3_bind_null(st, i);
}

static void bind_real_or_null(sqlite3_stmt *st, int i, double v)
{
        if (isfinite(v))
                sqlite3_bind_double(st, i, v);
        else
                sqlite3_bind_null(st, i);
}

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
        const unsigned char *s = sqlite3_column_text(st, i);

        snprintf(buf, len, "%s", s ? (const char *)s : "");
}

static void row_to_run(sqlite3_stmt *st, struct res_run *r)
{
        memset(r, 0, sizeof(*r));
        r->id = sqlite3_column_int64(st, 0);
        col_text(st, 1, r->kind, sizeof(r->kind));
        col_text(st, 2, r->started_at, sizeof(r->started_at));
        col_text(st, 3, r->topology, sizeof(r->topology));
        col_text(st, 4, r->headline, sizeof(r->headline));
        r->tps_or_iops =
            sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 5);
        r->p99_ms = sqlite3_column_type(st, 6) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 6);
        col_text(st, 7, r->path, sizeof(r->path));
}

static const char upsert_sql[] =
    "INSERT INTO runs(kind, started_at, topology, headline, tps_or_iops, p99_ms, path) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, "
    "started_at = excluded.started_at, topology = excluded.topology, "
    "headline = excluded.headline, tps_or_iops = excluded.tps_or_iops, "
    "p99_ms = excluded.p99_ms RETURNING id";

static int index_add(struct res_index *ix, const char *result_json_path, const json_t *doc,
                     struct res_run *out, char *err, size_t errlen)
{
        struct res_run run;
        sqlite3_stmt *st = NULL;
        int rc = doc ? res_run_from_doc(result_json_path, doc, &run, err, errlen)
                     : res_run_from_file(result_json_path, &run, err, errlen);

        if (rc)
                return rc;
        if (sqlite3_prepare_v2(ix->db, upsert_sql, -1, &st, NULL) != SQLITE_OK) {
                rc = db_fail(ix->db, "add", err, errlen);
                goto out;
        }
        bind_text_or_null(st, 1, run.kind);
        bind_text_or_null(st, 2, run.started_at);
        bind_text_or_null(st, 3, run.topology);
        bind_text_or_null(st, 4, run.headline);
        bind_real_or_null(st, 5, run.tps_or_iops);
        bind_real_or_null(st, 6, run.p99_ms);
        bind_text_or_null(st, 7, run.path);
        if (sqlite3_step(st) != SQLITE_ROW) {
                rc = db_fail(ix->db, "add", err, errlen);
                goto out;
        }
        run.id = sqlite3_column_int64(st, 0);
        if (out)
                *out = run;
out:
        sqlite3_finalize(st);
        return rc;
}

static int push_run(struct res_run **runs, unsigned *n, unsigned *cap, sqlite3_stmt *st)
{
        if (*n == *cap) {
                unsigned c = *cap ? *cap * 2 : 16;
                struct res_run *r = realloc(*runs, c * sizeof(*r));

                if (!r)
                        return -ENOMEM;
                *runs = r;
                *cap = c;
        }
        row_to_run(st, &(*runs)[(*n)++]);
        return 0;
}

int res_index_list(struct res_index *ix, const char *kind, const char *topology,
                   struct res_run **runs, unsigned *n, char *err, size_t errlen)
{
        static const char sql[] = "SELECT " RUN_COLS " FROM runs WHERE (?1 IS NULL OR kind = ?1) "
                                  "AND (?2 IS NULL OR topology = ?2) "
                                  "ORDER BY started_at DESC, id DESC";
        sqlite3_stmt *st = NULL;
        unsigned cap = 0;
        int rc = 0, s;

        *runs = NULL;
        *n = 0;
        if (sqlite3_prepare_v2(ix->db, sql, -1, &st, NULL) != SQLITE_OK)
                return db_fail(ix->db, "list", err, errlen);
        bind_text_or_null(st, 1, kind);
        bind_text_or_null(st, 2, topology);
        while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW)
                rc = push_run(runs, n, &cap, st);
        if (rc == -ENOMEM)
                snprintf(err, errlen, "out of memory");
        else if (s != SQLITE_DONE)
                rc = db_fail(ix->db, "list", err, errlen);
        sqlite3_finalize(st);
        if (rc) {
                free(*runs);
                *runs = NULL;
                *n = 0;
        }
        return rc;
}

int res_index_is_id(const char *s)
{
        if (!*s)
                return 0;
        for (; *s; s++)
                if (!isdigit((unsigned char)*s))
                        return 0;
        return 1;
}

/* One row where column = value; 1 found, 0 not, negative on error. */
static int find_by(struct res_index *ix, const char *col, const char *value, struct res_run *out,
                   char *err, size_t errlen)
{
        char sql[160];
        sqlite3_stmt *st = NULL;
        int s;

        snprintf(sql, sizeof(sql), "SELECT " RUN_COLS " FROM runs WHERE %s = ?1", col);
        if (sqlite3_prepare_v2(ix->db, sql, -1, &st, NULL) != SQLITE_OK)
                return db_fail(ix->db, "find", err, errlen);
        if (!strcmp(col, "id"))
                sqlite3_bind_int64(st, 1, strtoll(value, NULL, 10));
        else
                sqlite3_bind_text(st, 1, value, -1, SQLITE_TRANSIENT);
        s = sqlite3_step(st);
        if (s == SQLITE_ROW)
                row_to_run(st, out);
        sqlite3_finalize(st);
        if (s != SQLITE_ROW && s != SQLITE_DONE)
                return db_fail(ix->db, "find", err, errlen);
        return s == SQLITE_ROW;
}

int res_index_find(struct res_index *ix, const char *id_or_path, struct res_run *out, char *err,
                   size_t errlen)
{
        char abs[PATH_MAX];
        int rc = 0;

        if (res_index_is_id(id_or_path))
                rc = find_by(ix, "id", id_or_path, out, err, errlen);
        if (rc == 0)
                rc = find_by(ix, "path", realpath(id_or_path, abs) ? abs : id_or_path, out, err,
                             errlen);
        if (rc == 0) {
                snprintf(err, errlen, "run index: no run %s", id_or_path);
                return -ENOENT;
        }
        return rc < 0 ? rc : 0;
}

int res_index_add(struct res_index *ix, const char *result_json_path, struct res_run *out,
                  char *err, size_t errlen)
{
        return index_add(ix, result_json_path, NULL, out, err, errlen);
}

int res_index_register_doc(const char *result_json_path, const json_t *doc, char *err,
                           size_t errlen)
{
        struct res_index *ix;
        int rc = res_index_open(NULL, &ix, err, errlen);

        if (rc)
                return rc;
        rc = index_add(ix, result_json_path, doc, NULL, err, errlen);
        res_index_close(ix);
        return rc;
}

int res_index_register(const char *result_json_path, char *err, size_t errlen)
{
        return res_index_register_doc(result_json_path, NULL, err, errlen);
}
