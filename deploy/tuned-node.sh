#!/bin/sh
# Runs node with the glibc malloc settings Tide's processes are measured with (docs/performance.md).
#
# grpc-js gives every gRPC message a fresh buffer: 1 MiB producer batches and fetch responses are
# copied into new memory on both sides of a connection. With glibc's defaults, memory freed at the
# top of the heap goes back to the kernel at once, so each new message page-faults it in again:
# copying 1 MiB into fresh memory took 0.69 ms with the defaults and 0.10 ms with these settings
# (on the 2-core CI machine). Allocations up to 4 MiB stay on the heap, and up to 64 MiB of freed
# memory stays mapped per malloc arena (resident memory can stay that much above what is in use;
# most of Tide's lives in the main arena). Values already in the environment win; other C
# libraries (musl) and other allocators (Go's, jemalloc) ignore them.
set -eu
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-4194304}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-67108864}"
exec node "$@"
