// Round trip of the deferred ops and of #gpuc.job in every shape. A deferred
// op may name a source that is not in the module (a library or a generator
// provides it), so these modules verify without the sources.
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: gpuc.func @calls(%a: f32, %b: i32) kernel {
// CHECK-NEXT:    %r = gpuc.deferred_call @src(%a) #gpuc.job<helper> : (f32) -> f32
// CHECK-NEXT:    %s = gpuc.deferred_call @src(%a) #gpuc.job<helper, always_inline> : (f32) -> f32
// CHECK-NEXT:    %t = gpuc.deferred_call @src(%a) #gpuc.job<helper, no_inline> : (f32) -> f32
// CHECK-NEXT:    %u, %v = gpuc.deferred_call @pair(%a, %b) #gpuc.job<helper> {tag} : (f32, i32) -> (f32, i32)
// CHECK-NEXT:    gpuc.deferred_call @sink() #gpuc.job<helper, generator = "mock_autodiff"> : () -> ()
// CHECK-NEXT:    %w = gpuc.deferred_call @library_only(%b) #gpuc.job<helper, always_inline, generator = "wrap" {always_inline = true, depth = 2 : i32}> : (i32) -> i32
// GENERIC:       %r = "gpuc.deferred_call"(%a) <{source = @src, job = #gpuc.job<helper>}> : (f32) -> f32
// GENERIC:       %s = "gpuc.deferred_call"(%a) <{source = @src, job = #gpuc.job<helper, always_inline>}> : (f32) -> f32
gpuc.func @calls(%a: f32, %b: i32) kernel {
  %r = gpuc.deferred_call @src(%a) #gpuc.job<helper> : (f32) -> f32
  %s = gpuc.deferred_call @src(%a) #gpuc.job<helper, always_inline> : (f32) -> f32
  %t = gpuc.deferred_call @src(%a) #gpuc.job<helper, no_inline> : (f32) -> f32
  %u, %v = gpuc.deferred_call @pair(%a, %b) #gpuc.job<helper> {tag} : (f32, i32) -> (f32, i32)
  gpuc.deferred_call @sink() #gpuc.job<helper, generator = "mock_autodiff"> : () -> ()
  %w = gpuc.deferred_call @library_only(%b) #gpuc.job<helper, always_inline, generator = "wrap" {always_inline = true, depth = 2 : i32}> : (i32) -> i32
  gpuc.return
}

// The address of a job: a helper, or a kernel (no results) for a launch by address.
// CHECK-LABEL: gpuc.func @addresses(%a: f32) kernel {
// CHECK-NEXT:    %fp = gpuc.deferred_addr @src #gpuc.job<helper> : !gpuc.funcptr<(f32) -> f32>
// CHECK-NEXT:    %gp = gpuc.deferred_addr @src #gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}> : !gpuc.funcptr<(f32) -> f32>
// CHECK-NEXT:    %kp = gpuc.deferred_addr @child #gpuc.job<kernel> {tag} : !gpuc.funcptr<(f32) -> ()>
// CHECK-NEXT:    %r = gpuc.call_indirect %gp(%a) : !gpuc.funcptr<(f32) -> f32>
// GENERIC:       %fp = "gpuc.deferred_addr"() <{source = @src, job = #gpuc.job<helper>}> : () -> !gpuc.funcptr<(f32) -> f32>
gpuc.func @addresses(%a: f32) kernel {
  %fp = gpuc.deferred_addr @src #gpuc.job<helper> : !gpuc.funcptr<(f32) -> f32>
  %gp = gpuc.deferred_addr @src #gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}> : !gpuc.funcptr<(f32) -> f32>
  %kp = gpuc.deferred_addr @child #gpuc.job<kernel> {tag} : !gpuc.funcptr<(f32) -> ()>
  %r = gpuc.call_indirect %gp(%a) : !gpuc.funcptr<(f32) -> f32>
  gpuc.return
}

// CHECK-LABEL: gpuc.func @launches(%n: index, %x: !gpuc.ptr<f32, global>) kernel {
// CHECK-NEXT:    gpuc.deferred_launch @child grid(%n) block(%n) (%x) #gpuc.job<kernel> : (!gpuc.ptr<f32, global>)
// CHECK-NEXT:    gpuc.deferred_launch @child grid(%n, %n, %n) block(%n, %n) shared(%n) (%x) #gpuc.job<kernel, no_inline> {tag} : (!gpuc.ptr<f32, global>)
// CHECK-NEXT:    gpuc.deferred_launch @generated grid(%n) block(%n) () #gpuc.job<kernel, generator = "mock_autodiff"> : ()
// GENERIC:       "gpuc.deferred_launch"(%n, %n, %x) <{source = @child, job = #gpuc.job<kernel>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (index, index, !gpuc.ptr<f32, global>) -> ()
gpuc.func @launches(%n: index, %x: !gpuc.ptr<f32, global>) kernel {
  gpuc.deferred_launch @child grid(%n) block(%n) (%x) #gpuc.job<kernel> : (!gpuc.ptr<f32, global>)
  gpuc.deferred_launch @child grid(%n, %n, %n) block(%n, %n) shared(%n) (%x) #gpuc.job<kernel, no_inline> {tag} : (!gpuc.ptr<f32, global>)
  gpuc.deferred_launch @generated grid(%n) block(%n) () #gpuc.job<kernel, generator = "mock_autodiff"> : ()
  gpuc.return
}

// A job configuration is an ordinary attribute: it can sit anywhere.
// CHECK-LABEL: gpuc.func private @tagged() helper attributes {job = #gpuc.job<helper, always_inline>, jobs = [#gpuc.job<kernel>, #gpuc.job<helper, generator = "g" {n = 3 : i32}>]}
gpuc.func private @tagged() helper attributes {job = #gpuc.job<helper, always_inline>, jobs = [#gpuc.job<kernel>, #gpuc.job<helper, generator = "g" {n = 3 : i32}>]}

// A kernel the host launches, whose body is one helper job.
// CHECK: gpuc.deferred_kernel @grad = @src #gpuc.job<helper, generator = "autodiff" {mode = "reverse", always_inline}> : (f32, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>) -> f32
// GENERIC: "gpuc.deferred_kernel"() <{sym_name = "grad", source = @src, job = #gpuc.job<helper, generator = "autodiff" {mode = "reverse", always_inline}>, function_type = (f32, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>) -> f32}> : () -> ()
gpuc.deferred_kernel @grad = @src #gpuc.job<helper, generator = "autodiff" {mode = "reverse", always_inline}> : (f32, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>) -> f32
