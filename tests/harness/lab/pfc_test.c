// SPDX-License-Identifier: MIT
/* IEEE 802.1Qbb PFC frames, byte by byte against the standard's layout, and hostile input. */
#define _GNU_SOURCE
#include "harness/lab/pfc.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

/*
 * A frame pausing priority 3 for 65535 quanta from 02:00:00:00:00:01, laid
 * out as IEEE 802.1Qbb-2011 clause 36.1.3 gives it: MAC control destination
 * 01-80-C2-00-00-01, EtherType 88-08, opcode 01-01, a class-enable vector of
 * two octets (the first reserved, zero; the second e[7..0]), eight two-octet
 * times, then zero padding to the 60-octet minimum before the FCS.
 */
static const uint8_t want[PFC_FRAME_LEN] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,		    /* destination */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01,		    /* source */
    0x88, 0x08,					    /* MAC control */
    0x01, 0x01,					    /* PFC */
    0x00, 0x08,					    /* class-enable: priority 3 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, /* time[0..3] */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time[4..7] */
						    /* 26 octets of padding */
};

Test(pfc, frame_matches_the_standard_layout)
{
	struct pfc_frame f = {.src = {0x02, 0, 0, 0, 0, 0x01}, .enable = 1u << 3};
	uint8_t out[PFC_FRAME_LEN];

	f.quanta[3] = 65535;
	memset(out, 0xaa, sizeof(out));
	pfc_frame_build(out, &f);
	for (size_t i = 0; i < sizeof(out); i++)
		cr_assert_eq(out[i], want[i], "octet %zu: %02x, want %02x", i, out[i], want[i]);
}

Test(pfc, every_priority_and_time_field_in_place)
{
	struct pfc_frame f = {.enable = 0xa5}, back;
	uint8_t out[PFC_FRAME_LEN];

	for (int p = 0; p < 8; p++)
		f.quanta[p] = (uint16_t)(0x1000 * (p + 1) + p);
	pfc_frame_build(out, &f);
	cr_assert_eq(out[16], 0);
	cr_assert_eq(out[17], 0xa5);
	for (int p = 0; p < 8; p++) {
		cr_assert_eq(out[18 + 2 * p], (0x1000 * (p + 1) + p) >> 8, "time[%d] high", p);
		cr_assert_eq(out[19 + 2 * p], p, "time[%d] low", p);
	}
	cr_assert_eq(pfc_frame_parse(out, sizeof(out), &back), 0);
	cr_assert_eq(back.enable, 0xa5);
	cr_assert_arr_eq(back.quanta, f.quanta, sizeof(f.quanta));
}

Test(pfc, parse_refuses_what_is_not_pfc)
{
	struct pfc_frame f;
	uint8_t b[PFC_FRAME_LEN];

	memcpy(b, want, sizeof(b));
	cr_assert_eq(pfc_frame_parse(b, 33, &f), -EINVAL, "short");
	cr_assert_eq(pfc_frame_parse(b, 0, &f), -EINVAL, "empty");
	b[15] = 0x01 - 1; /* opcode 0x0100 */
	cr_assert_eq(pfc_frame_parse(b, sizeof(b), &f), -EPROTO, "other opcode");
	b[14] = 0x00, b[15] = 0x01; /* 802.3x PAUSE */
	cr_assert_eq(pfc_frame_parse(b, sizeof(b), &f), -EPROTO, "global pause");
	memcpy(b, want, sizeof(b));
	b[5] = 0x02;
	cr_assert_eq(pfc_frame_parse(b, sizeof(b), &f), -EPROTO, "other destination");
	memcpy(b, want, sizeof(b));
	b[16] = 0x01;
	cr_assert_eq(pfc_frame_parse(b, sizeof(b), &f), -EPROTO, "reserved octet set");
	memcpy(b, want, sizeof(b));
	b[13] = 0x00; /* IPv4 */
	cr_assert_eq(pfc_frame_parse(b, sizeof(b), &f), -EINVAL, "not MAC control");
}
