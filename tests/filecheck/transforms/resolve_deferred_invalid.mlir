// resolve-deferred diagnostics: each names the deferred op, at its line, says
// what is wrong and what to do.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p resolve-deferred | FileCheck %s
// RUN: not gpuc-opt %S/Inputs/resolve_library.mlir -p 'resolve-deferred{libraries="%S/Inputs/no_such_library.mlir"}' 2>&1 | FileCheck %s --check-prefix=NOLIB

// NOLIB: error: cannot read library '{{.*}}no_such_library.mlir': No such file or directory

gpuc.func @k(%x: f32) kernel {
  // CHECK: resolve_deferred_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op job source @nowhere not found: looked in the module (not defined), in the libraries (none given) and asked the generators (autodiff, mock_autodiff, none made it); define it, or pass a library that defines it
  %r = gpuc.deferred_call @nowhere(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}

// -----

gpuc.func @k(%x: f32) kernel {
  // CHECK: [[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op job source @decl not found: looked in the module (only declared)
  %r = gpuc.deferred_call @decl(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func private @decl(f32) -> f32 helper

// -----

gpuc.func @k(%x: i32) kernel {
  // CHECK: [[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op operand types (i32) differ from job source @h's parameter types (f32) (found in the module); make the deferred op's types match the job source's signature
  %r = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (i32) -> f32
  gpuc.return
}
gpuc.func @h(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

gpuc.func @k(%x: f32) kernel {
  %r = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  // CHECK: [[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op result types (i32) differ from job source @h's result types (f32); make the deferred op's types match the job source's signature
  %s = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> i32
  gpuc.return
}
gpuc.func @h(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

gpuc.func @k(%x: f32, %n: index) kernel {
  // CHECK: [[# @LINE + 1]]:3: error: 'gpuc.deferred_launch' op kernel job @h #gpuc.job<kernel>: @h (found in the module) returns (f32), but a kernel returns nothing; write results through a pointer argument
  gpuc.deferred_launch @h grid(%n) block(%n) (%x) #gpuc.job<kernel> : (f32)
  gpuc.return
}
gpuc.func @h(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

gpuc.func @k(%x: f32) kernel {
  // CHECK: [[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op unknown generator 'nope'; known generators: autodiff, mock_autodiff (third parties register theirs under the 'gpuc.generators' entry point group)
  %r = gpuc.deferred_call @h(%x) #gpuc.job<helper, generator = "nope"> : (f32) -> f32
  gpuc.return
}
gpuc.func @h(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

gpuc.func @k(%x: f32) kernel {
  // CHECK: [[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op generator 'mock_autodiff' failed on job @h #gpuc.job<helper, generator = "mock_autodiff" {depth = 2 : i64}>: ValueError: unknown parameter(s) depth; mock_autodiff takes always_inline
  %r = gpuc.deferred_call @h(%x) #gpuc.job<helper, generator = "mock_autodiff" {depth = 2}> : (f32) -> f32
  gpuc.return
}
gpuc.func @h(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

gpuc.func @k(%x: f32) kernel {
  // CHECK: [[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op generator 'mock_autodiff' declined job @missing #gpuc.job<helper, generator = "mock_autodiff"> (no definition of @missing is in the module or the libraries); define @missing or use another generator
  %r = gpuc.deferred_call @missing(%x) #gpuc.job<helper, generator = "mock_autodiff"> : (f32) -> f32
  gpuc.return
}

// -----

gpuc.func @k(%x: f32) kernel {
  // CHECK: [[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op job source @h is a 'func.func', not a gpuc.func; a job compiles a gpuc.func (the import pass turns func.func into one)
  %r = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
func.func @h(%x: f32) -> f32 {
  func.return %x : f32
}
