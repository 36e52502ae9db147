// What a symbol became, read from each target's artefact: an exported helper
// is a visible PTX .func, a SPIR-V function with an Export linkage
// decoration, and a GLOBAL symbol of the native object (the AMDGPU code
// object: targets_amdgpu.mlir); a kernel is the target's entry (the native
// target's launch entry).
// RUN: gpuc explain %s --export exported --target ptx | FileCheck %s --check-prefix=PTX
// RUN: gpuc explain %s --export exported --target spirv | FileCheck %s --check-prefix=SPIRV
// RUN: gpuc explain %s --export exported --target native | FileCheck %s --check-prefix=NATIVE

// PTX-LABEL: @k: entrypoint: kernel of the module
// PTX:         artefact: PTX .visible .entry k{{$}}
// PTX-LABEL: @exported: entrypoint: explicit export
// PTX:         artefact: PTX .visible .func exported{{$}}

// SPIRV-LABEL: @k: entrypoint: kernel of the module
// SPIRV:         artefact: SPIR-V OpFunction %k (OpEntryPoint Kernel, no linkage decoration)
// SPIRV-LABEL: @exported: entrypoint: explicit export
// SPIRV:         artefact: SPIR-V OpFunction %exported (LinkageAttributes Export)

// NATIVE-LABEL: @k: entrypoint: kernel of the module
// NATIVE:         artefact: FUNC symbol __gpuc_launch_k (GLOBAL) (the target's launch entry)
// NATIVE-LABEL: @exported: entrypoint: explicit export
// NATIVE:         artefact: FUNC symbol exported (GLOBAL)

gpuc.func @k(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {
  %d = gpuc.call @exported(%x) : (f32) -> f32
  gpuc.store %d, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func @exported(%x: f32) -> f32 helper no_inline {
  %y = arith.mulf %x, %x : f32
  gpuc.return %y : f32
}
