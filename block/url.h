/*
 * url.h - the shape of an iSCSI URL, checked before anything connects.
 *
 * libiscsi's own parser reads "host:69796" as some other port and
 * "host:4260abc" as 4260, so a typing mistake would quietly reach another
 * portal. blk_url_check() holds a URL to
 *   iscsi://[USER(%|:)SECRET@]HOST[:PORT]/IQN/LUN[?query]
 * with HOST non-empty ([v6] allowed), PORT 1..65535 digits only, a
 * non-empty IQN and a LUN of 0..16383. USER and SECRET, when given, are
 * non-empty and there is one '@' at most (libiscsi would look up "v@host"
 * as a host name). The query holds only target_user, target_password and
 * header_digest, each once with a non-empty value; a bare '?' is refused.
 * Pure function, any thread.
 */
#ifndef HCI_BLK_URL_H
#define HCI_BLK_URL_H

#include <stddef.h>

/*
 * 0, or -EINVAL with one line in err saying what is wrong (the message
 * never quotes the credentials part of the URL).
 */
int blk_url_check(const char *url, char *err, size_t errlen);

#endif
