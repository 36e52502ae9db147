// --allow-unregistered-dialect keeps unknown ops (and their regions) as they
// are; gpuc ops inside them still verify. An unknown op is not a symbol table
// (as in MLIR), so a call inside one resolves in the enclosing module.
// RUN: gpuc-opt %s --allow-unregistered-dialect | gpuc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: not gpuc-opt %s 2>&1 | FileCheck %s --check-prefix=STRICT

// CHECK:      %t = "vendor.token"() : () -> i32
// CHECK-NEXT: "vendor.region"(%t) ({
// CHECK-NEXT:   gpuc.func @k() kernel {
// CHECK-NEXT:     gpuc.call @h() : () -> ()
// STRICT: unregistered.mlir:[[# @LINE + 1]]:6: error: unknown operation 'vendor.token': dialect 'vendor' is not registered (gpuc-opt keeps unknown ops as they are with --allow-unregistered-dialect)
%t = "vendor.token"() : () -> i32
"vendor.region"(%t) ({
  gpuc.func @k() kernel {
    gpuc.call @h() : () -> ()
    gpuc.return
  }
}) : (i32) -> ()
gpuc.func private @h() helper
