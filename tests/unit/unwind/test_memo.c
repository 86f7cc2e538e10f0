/* test_memo.c - recorder/unwind/memo.c: find's answers kept by (pid, pc) within an epoch: a
 * pc asked again is not looked up again and gets the same answer (its module, its note, its
 * -ENOENT); another pid, another epoch or epoch 0 asks find; -ENOMEM is never kept; many pcs
 * sharing slots still get their own answers. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "recorder/unwind/unwind.h"

static unsigned calls;
static int fail_next;

/* A deterministic find: pcs below 0x1000 have no map (-ENOENT, note 7), the rest an answer
 * made of the pc and how many calls came before (so a kept answer is told from a new one). */
static int fake_find(void *ctx, uint64_t pc, struct unw_module *m)
{
	(void)ctx;
	calls++;
	if (fail_next) {
		fail_next = 0;
		return -ENOMEM;
	}
	if (pc < 0x1000) {
		m->note = 7;
		return -ENOENT;
	}
	m->file_off = pc - 0x1000;
	m->code = UNW_CODE_CFI;
	m->data = (const void *)(uintptr_t)calls;
	m->note = 1;
	return 0;
}

static struct unw_memo *mm;

static void setup(void)
{
	cr_assert_eq(unw_memo_new(&mm), 0);
	calls = 0;
	fail_next = 0;
}

static void teardown(void)
{
	unw_memo_free(mm);
}

TestSuite(memo, .init = setup, .fini = teardown, .timeout = 30);

static int ask(uint64_t epoch, uint32_t pid, uint64_t pc, struct unw_module *m)
{
	*m = (struct unw_module){ 0 };
	return unw_memo_find(mm, epoch, pid, pc, fake_find, NULL, m);
}

Test(memo, a_pc_asked_again_is_not_looked_up_again)
{
	struct unw_module a, b;
	cr_assert_eq(ask(5, 100, 0x4321, &a), 0);
	cr_assert_eq(ask(5, 100, 0x4321, &b), 0);
	cr_assert_eq(calls, 1, "find called %u times", calls);
	cr_assert_eq(b.file_off, 0x3321);
	cr_assert_eq(b.data, a.data, "not the first answer");
	cr_assert_eq(b.note, 1);
	/* no map: kept too, with its note */
	cr_assert_eq(ask(5, 100, 0x10, &a), -ENOENT);
	cr_assert_eq(ask(5, 100, 0x10, &b), -ENOENT);
	cr_assert_eq(calls, 2);
	cr_assert_eq(b.note, 7);
	struct unw_memo_stats st;
	unw_memo_stats(mm, &st);
	cr_assert_eq(st.hits, 2);
	cr_assert_eq(st.misses, 2);
}

Test(memo, another_pid_epoch_or_epoch_0_asks_find)
{
	struct unw_module m;
	cr_assert_eq(ask(5, 100, 0x4321, &m), 0);
	cr_assert_eq(ask(5, 101, 0x4321, &m), 0);	/* another process */
	cr_assert_eq(calls, 2);
	cr_assert_eq(ask(6, 100, 0x4321, &m), 0);	/* a map fed since */
	cr_assert_eq(calls, 3);
	cr_assert_eq(m.data, (const void *)(uintptr_t)3, "an answer of the old epoch");
	cr_assert_eq(ask(5, 100, 0x4321, &m), 0);	/* epochs only go on: all dropped */
	cr_assert_eq(calls, 4);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(ask(0, 100, 0x4321, &m), 0);	/* 0: nothing kept */
	cr_assert_eq(calls, 7);
	cr_assert_eq(unw_memo_find(NULL, 5, 100, 0x4321, fake_find, NULL, &m), 0);
	cr_assert_eq(calls, 8);
}

Test(memo, out_of_memory_is_never_kept)
{
	struct unw_module m;
	fail_next = 1;
	cr_assert_eq(ask(5, 100, 0x4321, &m), -ENOMEM);
	cr_assert_eq(ask(5, 100, 0x4321, &m), 0);
	cr_assert_eq(ask(5, 100, 0x4321, &m), 0);
	cr_assert_eq(calls, 2);
}

/* More pcs than slots: each answer is its own pc's, whatever it replaced. */
Test(memo, many_pcs_each_their_own_answer)
{
	struct unw_module m;
	for (int round = 0; round < 2; round++)
		for (uint64_t pc = 0x1000; pc < 0x1000 + 40000 * 16; pc += 16) {
			cr_assert_eq(ask(9, 100, pc, &m), 0);
			cr_assert_eq(m.file_off, pc - 0x1000);
		}
	struct unw_memo_stats st;
	unw_memo_stats(mm, &st);
	cr_assert_eq(st.hits + st.misses, 80000);
	cr_assert_eq(calls, st.misses);
}
