/*
 * check_coop.c: cooperative regions (issue 13): their typing, and the rules
 * of one block's threads (devices.md, "Cooperative regions").
 *
 * Their typing is check_stmt.c's (check_coop, check_shared, check_barrier).
 * The rules (coop_rules, in the parallel-rules pass), on the symbolic core:
 *   E-COOP-BARRIER  a barrier under a condition whose value differs between
 *                   the block's threads, in a loop whose trip count does, or
 *                   in a loop a break or continue can leave early
 *   E-COOP-WARP     a warp operation under a condition that splits a warp
 *   then one block is run, thread by thread, with the thread's names as
 *   constants and the block's names and everything from outside as
 *   unknowns (sym.h): every access of a shared array gives an element, a
 *   phase (the barriers before it) and a place in the thread's order, and
 *   E-COOP-CONFLICT  two threads write one element in a phase
 *   E-COOP-UNORDERED a thread reads what another writes before it in the
 *                    phase
 *   E-COOP-REUSE     a thread writes over what another reads before it in
 *                    the phase
 *   E-COOP-UNWRITTEN an unzeroed array's element read that no thread surely
 *                    wrote first
 *   E-COOP-UNDECIDED an element the run cannot name where a write is
 *                    involved, or a barrier in a loop it cannot count
 * are reported with the threads, the element and both lines.
 *
 * Requires: a typed program. Guarantees, for a region it accepts: the phase
 * rule holds for its shared arrays. Arrays from outside the region
 * (E-COOP-GLOBAL) and the lowering are the next steps of issue 13: until
 * then every region is also refused with E-UNSUPPORTED, after these rules,
 * so none is accepted unchecked.
 */
#include "check.h"
#include "par.h"
#include "sym.h"

#include <stdlib.h>
#include <string.h>

enum { UNROLL_LIMIT = 256, MAX_CONDS = 16 };

