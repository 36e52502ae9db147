// gpuc.printf on native: snprintf measures the text, formats it into a
// malloc'ed buffer, and hands it to the executor's __gpuc_print with the
// block's linear index (gpuc/runtime/printing.py). A 64-bit value's
// conversion is respelled with `ll`.
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK: @gpuc.printf.format = private unnamed_addr constant [25 x i8] c"x=%d f=%.2f c=%u i=%lld\0A\00"
// CHECK-LABEL: define internal void @k(ptr %state
// CHECK: %[[LEN:.+]] = call i32 (ptr, i64, ptr, ...) @snprintf(ptr null, i64 0, ptr @gpuc.printf.format, i32 %x, double %{{.+}}, i32 %{{.+}}, i64 %{{.+}})
// CHECK: call ptr @malloc(
// CHECK: call i32 (ptr, i64, ptr, ...) @snprintf(ptr %{{.+}}, i64 %{{.+}}, ptr @gpuc.printf.format,
// CHECK: call void @__gpuc_print(i64 %{{.+}}, ptr %{{.+}}, i64 %{{.+}})
// CHECK: call void @free(
gpuc.func @k(%x: i32, %f: f32, %c: i8) kernel {
  %i = gpuc.global_id x
  gpuc.printf "x=%d f=%.2f c=%u i=%d\n" %x, %f, %c, %i : i32, f32, i8, index
  gpuc.return
}
