/*
 * cgroup_file.h - the small files of a cgroup directory, for cgroup.c,
 * cgroup_v1.c and cgroup_v2.c (cgroup_file.c); not for use elsewhere.
 */
#ifndef HCI_LAB_CGROUP_FILE_H
#define HCI_LAB_CGROUP_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Write val to dir/name; on failure one line in err. */
int cg_write(const char *dir, const char *name, const char *val, char *err, size_t errlen);

/* The first line of dir/name into out, without its newline ("" if unreadable). */
void cg_line(const char *dir, const char *name, char *out, size_t outlen);

/* Up to len - 1 bytes of dir/name into buf ("" if unreadable). */
void cg_text(const char *dir, const char *name, char *buf, size_t len);

/* The number after key in the flat-keyed file dir/name ("key value" lines); -1 if none. */
int64_t cg_key(const char *dir, const char *name, const char *key);

/* 1 if dir/name exists. */
int cg_has(const char *dir, const char *name);

/* SIGKILL every PID listed in dir/cgroup.procs but keep; how many, their PIDs in killed. */
int cg_kill_listed(const char *dir, pid_t keep, pid_t *killed, int max);

/* rmdir that waits out tasks that are still exiting (EBUSY). */
int cg_rmdir(const char *dir);

/* rmdir dir's parent and grandparent (lab and hcisweep levels) when they are empty. */
void cg_rmdir_parents(const char *dir);

/* Memory limit text ("max", a v1 huge number) as bytes, -1 unlimited or unknown. */
int64_t cg_bytes(const char *val);

#endif
