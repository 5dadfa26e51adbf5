// Counts the allocations of the whole test binary (operator new is replaced in
// allocation_counter.cc), so that a test can assert that a call allocates nothing.
#pragma once

namespace tether::testing {

// Number of calls of the global operator new so far.
long AllocationCount();

}  // namespace tether::testing
