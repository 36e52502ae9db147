// A finalization record that cannot be a target's decision is refused as it
// is read (finalize-kernels writes records; by hand they are for tests).
// RUN: gpuc-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

// CHECK: [[# @LINE + 1]]:1: error: #gpuc.finalized shared = -5: a size in bytes cannot be negative
gpuc.func @k() kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k", shared = -5>} {
  gpuc.return
}

// -----

// CHECK: [[# @LINE + 1]]:1: error: #gpuc.finalized block = [1, 2]: give x, y and z, each at least 1
gpuc.func @k() kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k", block = [1, 2]>} {
  gpuc.return
}

// -----

// CHECK: [[# @LINE + 1]]:1: error: #gpuc.finalized launch_entry without state: a launch entry passes the kernel its state
gpuc.func @k() kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k", launch_entry, shared = 0>} {
  gpuc.return
}

// -----

// CHECK: [[# @LINE + 1]]:1: error: #gpuc.finalized needs a non-empty symbol
gpuc.func @k() kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "", shared = 0>} {
  gpuc.return
}
