// AMD's device printf needs ROCm's device library, which gpuc does not link:
// a located diagnostic saying what to do instead.
// RUN: not gpuc-opt %s -t amdgpu 2>&1 | FileCheck %s

// CHECK: printf.mlir:[[# @LINE + 2]]:3: error: 'gpuc.printf' op prints, which the amdgpu target cannot do: AMD's device printf is a hostcall through ROCm's device library (ockl), which gpuc does not link; write the values to an output array, or print on ptx, spirv or native
gpuc.func @k(%x: i32) kernel {
  gpuc.printf "x=%d\n" %x : i32
  gpuc.return
}
