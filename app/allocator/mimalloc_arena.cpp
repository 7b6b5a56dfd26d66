// Compiled into every executable that links ls_allocator with mimalloc (top-level CMakeLists):
// reserves address space for mimalloc's arena before main. Without it, mimalloc maps each large
// block (a weight, a flatbuffer, an .lsg buffer: megabytes) from the system and unmaps it when
// freed, so every pipeline run touches fresh pages again (page faults, zeroing): a repeated run
// (bench, the app's re-runs) cost more than under glibc. From the arena, freed large blocks are
// reused. The arena is mapped readable and writable up front ("committed", as the
// MIMALLOC_RESERVE_OS_MEMORY option maps it), which costs no memory until pages are touched:
// the RSS grows only with what the process uses, and mimalloc then keeps touched pages for
// reuse instead of returning them to the system and faulting them in again (an arena it maps
// uncommitted, it decommits and recommits). When the system refuses the mapping (strict
// overcommit), mimalloc works as without it.
#include <mimalloc.h>

#include <cstddef>

namespace {

constexpr size_t kArenaBytes = size_t(1) << 30;

[[maybe_unused]] const int kReserved = mi_reserve_os_memory(kArenaBytes, /*commit=*/true, /*allow_large=*/false);

}  // namespace
