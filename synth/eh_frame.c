/* eh_frame.c - checks a runtime's unwind blob (jitdump UNWINDING_INFO: .eh_frame, then
 * .eh_frame_hdr as its last eh_frame_hdr_size bytes) before it is copied verbatim into an ELF:
 * unwinders trust these bytes, so a record chain that runs past its section is refused here. */
#include <errno.h>
#include <inttypes.h>

#include "synth/synth_int.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* CIE/FDE records: each a u32 length (0xffffffff: a u64 follows), ended by a zero length or
 * by the end of the section. */
static int check_records(const uint8_t *p, uint64_t size, const struct jp_log *log)
{
	uint64_t off = 0;
	while (off < size) {
		if (size - off < 4)
			return synth_err(log, -EINVAL, "unwind data: .eh_frame byte %" PRIu64
					 ": %" PRIu64 " bytes left, a record length needs 4", off,
					 size - off);
		uint64_t len = le32(p + off), hdr = 4;
		if (len == 0)
			return 0;
		if (len == 0xffffffffu) {
			if (size - off < 12)
				return synth_err(log, -EINVAL, "unwind data: .eh_frame byte %"
						 PRIu64 ": truncated 64-bit record length", off);
			len = le32(p + off + 4) | (uint64_t)le32(p + off + 8) << 32;
			hdr = 12;
		}
		if (len < 4 || len > size - off - hdr)
			return synth_err(log, -EINVAL, "unwind data: .eh_frame byte %" PRIu64
					 ": record of %" PRIu64 " bytes runs past the section's %"
					 PRIu64, off, len, size);
		off += hdr + len;
	}
	return 0;
}

int synth_check_unwind(const struct synth_input *in, const struct jp_log *log)
{
	uint64_t eh_size = in->unwind_size - in->eh_frame_hdr_size;
	int rc = check_records(in->unwind, eh_size, log);
	if (rc || !in->eh_frame_hdr_size)
		return rc;
	const uint8_t *hdr = in->unwind + eh_size;
	/* version, eh_frame_ptr_enc, fde_count_enc, table_enc (LSB 3.0 .eh_frame_hdr). */
	if (in->eh_frame_hdr_size < 4 || hdr[0] != 1)
		return synth_err(log, -EINVAL, "unwind data: .eh_frame_hdr at byte %" PRIu64
				 ": %" PRIu64 " bytes, version %u (want >= 4 bytes, version 1)",
				 eh_size, in->eh_frame_hdr_size, hdr[0]);
	return 0;
}
