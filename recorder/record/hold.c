/* hold.c - pipe mode's promise that a build-id comes before the samples that need it: the
 * records of one drain round are held here, with the DSOs whose build-id the side thread is
 * still reading and that the round's samples hit; recording.c waits for those (bounded), sends
 * their build-id records, then the round. A file keeps its table at the end instead. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/record/record_int.h"

int rec_hold_record(struct rec_hold *h, const struct perf_event_header *hdr)
{
	if (jp_grow(&h->buf, &h->cap, h->len + hdr->size, 1, 1u << 16))
		return -ENOMEM;
	memcpy(h->buf + h->len, hdr, hdr->size);
	h->len += hdr->size;
	return 0;
}

int rec_hold_need(struct rec_hold *h, struct rec_dso *d)
{
	if (!d || d->state != BID_REQUESTED || d->late)
		return 0;
	for (size_t i = 0; i < h->nwait; i++)
		if (h->wait[i] == d)
			return 0;
	if (jp_grow(&h->wait, &h->capwait, h->nwait + 1, sizeof(*h->wait), 16))
		return -ENOMEM;
	h->wait[h->nwait++] = d;
	return 0;
}

size_t rec_hold_pending(const struct rec_hold *h)
{
	size_t n = 0;
	for (size_t i = 0; i < h->nwait; i++)
		n += h->wait[i]->state == BID_REQUESTED;
	return n;
}

void rec_hold_give_up(struct rec_hold *h)
{
	for (size_t i = 0; i < h->nwait; i++)
		if (h->wait[i]->state == BID_REQUESTED)
			h->wait[i]->late = true;
}

int rec_hold_flush(struct rec_hold *h, struct pd_writer *w)
{
	int err = h->len ? pd_writer_write(w, h->buf, h->len) : 0;
	h->len = 0;
	h->nwait = 0;
	return err;
}

void rec_hold_free(struct rec_hold *h)
{
	free(h->buf);
	free(h->wait);
	memset(h, 0, sizeof(*h));
}
