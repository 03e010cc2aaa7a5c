// examples/matmul.mlir with ../../matmul.mlir's @main and
// ../../Inputs/gpu-memory.mlir, lowered by --vx-to-llvm="ptx-sim=true
// chip=sm_90a" before the sm_90 fixes of issue 26, frozen: the kernel's
// dynamic shared memory is `.shared .align 16 .b8 __dynamic_shmem__0;`, a
// one-byte static symbol that ptxas (and the simulator) lays out before
// `__mbarrier`, so the first TMA tile covers the mbarrier. The fences that
// the PTX of that compiler lacked were added by hand (fence.mbarrier_init
// and fence.proxy.async after mbarrier.init, the descriptor fence before each
// cp.async.bulk.tensor; the descriptor fence needs `.version 8.3`, raised
// from 8.0), so that the layout is the only fault left (tma-before-fix.test).
module attributes {gpu.container_module} {
  llvm.func @free(!llvm.ptr)
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @printNewline()
  llvm.func @printI64(i64)
  llvm.func @printString(!llvm.ptr)
  llvm.mlir.global private constant @vector_print_str(dense<[109, 105, 115, 109, 97, 116, 99, 104, 101, 115, 58, 32, 0]> : tensor<13xi8>) {addr_space = 0 : i32} : !llvm.array<13 x i8>
  llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<1 x i64>
  llvm.func @matmul(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: !llvm.ptr, %arg8: !llvm.ptr, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i64, %arg13: i64, %arg14: !llvm.ptr, %arg15: !llvm.ptr, %arg16: i64, %arg17: i64, %arg18: i64, %arg19: i64, %arg20: i64) {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %1 = llvm.mlir.constant(256 : index) : i64
    %2 = llvm.mlir.constant(8416 : i32) : i32
    %3 = llvm.mlir.constant(3 : index) : i64
    %4 = llvm.mlir.constant(2 : index) : i64
    %5 = llvm.mlir.constant(0 : i32) : i64
    %6 = llvm.mlir.constant(5 : i32) : i64
    %7 = llvm.mlir.constant(7 : i32) : i64
    %8 = llvm.mlir.constant(1 : index) : i64
    %9 = llvm.mlir.constant(8 : index) : i64
    %10 = llvm.mlir.constant(128 : index) : i64
    %11 = llvm.insertvalue %arg7, %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %12 = llvm.insertvalue %arg8, %11[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %13 = llvm.insertvalue %arg9, %12[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %14 = llvm.insertvalue %arg10, %13[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %15 = llvm.insertvalue %arg12, %14[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.insertvalue %arg11, %15[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %17 = llvm.insertvalue %arg13, %16[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %18 = llvm.insertvalue %arg0, %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %19 = llvm.insertvalue %arg1, %18[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %20 = llvm.insertvalue %arg2, %19[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %21 = llvm.insertvalue %arg3, %20[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %22 = llvm.insertvalue %arg5, %21[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %23 = llvm.insertvalue %arg4, %22[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %24 = llvm.insertvalue %arg6, %23[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %25 = llvm.alloca %8 x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
    llvm.store %24, %25 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
    %26 = llvm.alloca %6 x i64 : (i64) -> !llvm.ptr
    llvm.store %10, %26 : i64, !llvm.ptr
    %27 = llvm.getelementptr %26[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    llvm.store %9, %27 : i64, !llvm.ptr
    %28 = llvm.call @mgpuTensorMapEncodeTiledMemref(%4, %25, %7, %5, %5, %5, %5, %26) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    %29 = llvm.alloca %8 x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
    llvm.store %17, %29 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
    %30 = llvm.alloca %6 x i64 : (i64) -> !llvm.ptr
    llvm.store %9, %30 : i64, !llvm.ptr
    %31 = llvm.getelementptr %30[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    llvm.store %10, %31 : i64, !llvm.ptr
    %32 = llvm.call @mgpuTensorMapEncodeTiledMemref(%4, %29, %7, %5, %5, %5, %5, %30) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    gpu.launch_func  @matmul_kernel::@matmul_kernel blocks in (%4, %3, %8) threads in (%1, %8, %8) : i64 dynamic_shared_memory_size %2 args(%arg0 : !llvm.ptr, %arg1 : !llvm.ptr, %arg2 : i64, %arg3 : i64, %arg4 : i64, %arg5 : i64, %arg6 : i64, %arg7 : !llvm.ptr, %arg8 : !llvm.ptr, %arg9 : i64, %arg10 : i64, %arg11 : i64, %arg12 : i64, %arg13 : i64, %arg14 : !llvm.ptr, %arg15 : !llvm.ptr, %arg16 : i64, %arg17 : i64, %arg18 : i64, %arg19 : i64, %arg20 : i64, %28 : !llvm.ptr, %32 : !llvm.ptr)
    llvm.return
  }
  gpu.binary @matmul_kernel  [#gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx80">, properties = {LLVMIRToISATimeInMs = 77 : i64, O = 2 : i32}, assembly = "//\0A// Generated by LLVM NVPTX Back-End\0A//\0A\0A.version 8.3\0A.target sm_90a\0A.address_size 64\0A\0A\09// .globl\09matmul_kernel\0A// __dynamic_shmem__0 has been demoted\0A// __mbarrier has been demoted\0A\0A.visible .entry matmul_kernel(\0A\09.param .u64 .ptr .align 1 matmul_kernel_param_0,\0A\09.param .u64 .ptr .align 1 matmul_kernel_param_1,\0A\09.param .u64 matmul_kernel_param_2,\0A\09.param .u64 matmul_kernel_param_3,\0A\09.param .u64 matmul_kernel_param_4,\0A\09.param .u64 matmul_kernel_param_5,\0A\09.param .u64 matmul_kernel_param_6,\0A\09.param .u64 .ptr .align 1 matmul_kernel_param_7,\0A\09.param .u64 .ptr .align 1 matmul_kernel_param_8,\0A\09.param .u64 matmul_kernel_param_9,\0A\09.param .u64 matmul_kernel_param_10,\0A\09.param .u64 matmul_kernel_param_11,\0A\09.param .u64 matmul_kernel_param_12,\0A\09.param .u64 matmul_kernel_param_13,\0A\09.param .u64 .ptr .align 1 matmul_kernel_param_14,\0A\09.param .u64 .ptr .align 1 matmul_kernel_param_15,\0A\09.param .u64 matmul_kernel_param_16,\0A\09.param .u64 matmul_kernel_param_17,\0A\09.param .u64 matmul_kernel_param_18,\0A\09.param .u64 matmul_kernel_param_19,\0A\09.param .u64 matmul_kernel_param_20,\0A\09.param .u64 .ptr .align 1 matmul_kernel_param_21,\0A\09.param .u64 .ptr .align 1 matmul_kernel_param_22\0A)\0A.maxntid 256, 1, 1\0A{\0A\09.reg .pred \09%p<6>;\0A\09.reg .b16 \09%rs<5>;\0A\09.reg .b32 \09%r<95>;\0A\09.reg .b64 \09%rd<57>;\0A\09// demoted variable\0A\09.shared .align 16 .b8 __dynamic_shmem__0;\0A\09// demoted variable\0A\09.shared .align 8 .b8 __mbarrier[8];\0A\09ld.param.b64 \09%rd47, [matmul_kernel_param_22];\0A\09ld.param.b64 \09%rd45, [matmul_kernel_param_21];\0A\09ld.param.b64 \09%rd7, [matmul_kernel_param_15];\0A\09cvta.to.global.u64 \09%rd8, %rd7;\0A\09mov.u32 \09%r2, %ctaid.x;\0A\09mov.u32 \09%r3, %ctaid.y;\0A\09mov.u32 \09%r1, %tid.x;\0A\09cvt.u64.u32 \09%rd9, %r1;\0A\09mov.b64 \09%rd10, __dynamic_shmem__0;\0A\09cvta.shared.u64 \09%rd11, %rd10;\0A\09sub.s64 \09%rd12, 128, %rd11;\0A\09and.b64 \09%rd13, %rd12, 127;\0A\09add.s64 \09%rd1, %rd10, %rd13;\0A\09cvta.shared.u64 \09%rd14, %rd1;\0A\09add.s64 \09%rd15, %rd10, 4208;\0A\09cvta.shared.u64 \09%rd16, %rd15;\0A\09sub.s64 \09%rd17, 128, %rd16;\0A\09and.b64 \09%rd18, %rd17, 127;\0A\09add.s64 \09%rd19, %rd15, %rd18;\0A\09cvta.shared.u64 \09%rd20, %rd19;\0A\09shl.b32 \09%r10, %r2, 7;\0A\09cvt.u64.u32 \09%rd21, %r10;\0A\09shl.b32 \09%r11, %r3, 7;\0A\09cvt.u64.u32 \09%rd22, %r11;\0A\09cvta.to.shared::cluster.u64 \09%rd44, %rd14;\0A\09cvta.to.shared::cluster.u64 \09%rd46, %rd20;\0A\09shr.u64 \09%rd23, %rd9, 1;\0A\09and.b64 \09%rd24, %rd23, 120;\0A\09mul.wide.u32 \09%rd25, %r1, 8;\0A\09and.b64 \09%rd26, %rd25, 120;\0A\09shl.b64 \09%rd27, %rd24, 5;\0A\09shl.b64 \09%rd2, %rd23, 3;\0A\09or.b64 \09%rd28, %rd24, %rd21;\0A\09or.b64 \09%rd29, %rd26, %rd22;\0A\09mad.lo.s64 \09%rd30, %rd28, 1536, %rd8;\0A\09shl.b64 \09%rd31, %rd29, 2;\0A\09add.s64 \09%rd3, %rd30, %rd31;\0A\09or.b64 \09%rd32, %rd23, %rd21;\0A\09or.b64 \09%rd33, %rd32, 7;\0A\09mad.lo.s64 \09%rd34, %rd33, 1536, %rd8;\0A\09add.s64 \09%rd4, %rd34, %rd31;\0A\09and.b32 \09%r4, %r1, 15;\0A\09mul.wide.u32 \09%rd35, %r4, 32;\0A\09cvt.u16.u64 \09%rs1, %rd16;\0A\09neg.s16 \09%rs2, %rs1;\0A\09cvt.u64.u16 \09%rd36, %rs2;\0A\09and.b64 \09%rd37, %rd36, 127;\0A\09add.s64 \09%rd38, %rd35, %rd37;\0A\09add.s64 \09%rd39, %rd38, %rd10;\0A\09add.s64 \09%rd5, %rd39, 4236;\0A\09cvt.u16.u64 \09%rs3, %rd11;\0A\09neg.s16 \09%rs4, %rs3;\0A\09cvt.u64.u16 \09%rd40, %rs4;\0A\09and.b64 \09%rd41, %rd40, 127;\0A\09or.b64 \09%rd42, %rd27, %rd41;\0A\09add.s64 \09%rd43, %rd42, %rd10;\0A\09add.s64 \09%rd6, %rd43, 96;\0A\09mov.b64 \09%rd53, 0;\0A\09setp.eq.b32 \09%p2, %r1, 0;\0A\09bra.uni \09$L__BB0_1;\0A$L__BB0_9:\0A\09add.s64 \09%rd53, %rd53, 1;\0A\09setp.ne.b64 \09%p5, %rd53, 4;\0A\09@%p5 bra \09$L__BB0_1;\0A\09bra.uni \09$L__BB0_10;\0A$L__BB0_1:\0A\09bar.sync \090;\0A\09setp.ne.b64 \09%p1, %rd53, 0;\0A\09mov.b64 \09%rd52, __mbarrier;\0A\09@%p1 bra \09$L__BB0_3;\0A\09cvt.u32.u64 \09%r5, %rd52;\0A\09mov.b32 \09%r6, 2;\0A\09// begin inline asm\0A\09@%p2 mbarrier.init.shared.b64 [%r5], %r6;\0A\09@%p2 fence.mbarrier_init.release.cluster;\0A\09@%p2 fence.proxy.async.shared::cta;\0A\09// end inline asm\0A\09bar.sync \090;\0A$L__BB0_3:\0A\09bar.sync \090;\0A\09cvt.u32.u64 \09%r7, %rd52;\0A\09mov.b32 \09%r8, 4096;\0A\09// begin inline asm\0A\09@%p2 mbarrier.arrive.expect_tx.shared.b64 _, [%r7], %r8;\0A\09// end inline asm\0A\09cvt.u32.u64 \09%r14, %rd53;\0A\09shl.b32 \09%r9, %r14, 3;\0A\09// begin inline asm\0A\09@%p2 fence.proxy.tensormap::generic.acquire.gpu [%rd45], 128;\0A\09@%p2 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%rd44], [%rd45, {%r9,%r10} ], [%r7];\0A\09// end inline asm\0A\09// begin inline asm\0A\09@%p2 mbarrier.arrive.expect_tx.shared.b64 _, [%r7], %r8;\0A\09// end inline asm\0A\09// begin inline asm\0A\09@%p2 fence.proxy.tensormap::generic.acquire.gpu [%rd47], 128;\0A\09@%p2 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%rd46], [%rd47, {%r11,%r9} ], [%r7];\0A\09// end inline asm\0A\09and.b32 \09%r12, %r14, 1;\0A\09mov.b32 \09%r13, 10000000;\0A\09// begin inline asm\0A\09{\0A\09.reg .pred       P1; \0A\09LAB_WAIT: \0A\09mbarrier.try_wait.parity.shared.b64 P1, [%r7], %r12, %r13; \0A\09@P1 bra.uni DONE; \0A\09bra.uni     LAB_WAIT; \0A\09DONE: \0A\09}\0A\09// end inline asm\0A\09bar.sync \090;\0A\09@%p1 bra \09$L__BB0_5;\0A\09mov.b32 \09%r31, 0f00000000;\0A\09mov.b32 \09%r32, %r31;\0A\09mov.b32 \09%r33, %r31;\0A\09mov.b32 \09%r34, %r31;\0A\09mov.b32 \09%r35, %r31;\0A\09mov.b32 \09%r36, %r31;\0A\09mov.b32 \09%r37, %r31;\0A\09mov.b32 \09%r38, %r31;\0A\09mov.b32 \09%r39, %r31;\0A\09mov.b32 \09%r40, %r31;\0A\09mov.b32 \09%r41, %r31;\0A\09mov.b32 \09%r42, %r31;\0A\09mov.b32 \09%r43, %r31;\0A\09mov.b32 \09%r44, %r31;\0A\09mov.b32 \09%r45, %r31;\0A\09mov.b32 \09%r46, %r31;\0A\09mov.b32 \09%r47, %r31;\0A\09mov.b32 \09%r48, %r31;\0A\09mov.b32 \09%r49, %r31;\0A\09mov.b32 \09%r50, %r31;\0A\09mov.b32 \09%r51, %r31;\0A\09mov.b32 \09%r52, %r31;\0A\09mov.b32 \09%r53, %r31;\0A\09mov.b32 \09%r54, %r31;\0A\09mov.b32 \09%r55, %r31;\0A\09mov.b32 \09%r56, %r31;\0A\09mov.b32 \09%r57, %r31;\0A\09mov.b32 \09%r58, %r31;\0A\09mov.b32 \09%r59, %r31;\0A\09mov.b32 \09%r60, %r31;\0A\09mov.b32 \09%r61, %r31;\0A\09mov.b32 \09%r62, %r31;\0A\09mov.b32 \09%r63, %r31;\0A\09mov.b32 \09%r64, %r31;\0A\09mov.b32 \09%r65, %r31;\0A\09mov.b32 \09%r66, %r31;\0A\09mov.b32 \09%r67, %r31;\0A\09mov.b32 \09%r68, %r31;\0A\09mov.b32 \09%r69, %r31;\0A\09mov.b32 \09%r70, %r31;\0A\09mov.b32 \09%r71, %r31;\0A\09mov.b32 \09%r72, %r31;\0A\09mov.b32 \09%r73, %r31;\0A\09mov.b32 \09%r74, %r31;\0A\09mov.b32 \09%r75, %r31;\0A\09mov.b32 \09%r76, %r31;\0A\09mov.b32 \09%r77, %r31;\0A\09mov.b32 \09%r78, %r31;\0A\09mov.b32 \09%r79, %r31;\0A\09mov.b32 \09%r80, %r31;\0A\09mov.b32 \09%r81, %r31;\0A\09mov.b32 \09%r82, %r31;\0A\09mov.b32 \09%r83, %r31;\0A\09mov.b32 \09%r84, %r31;\0A\09mov.b32 \09%r85, %r31;\0A\09mov.b32 \09%r86, %r31;\0A\09mov.b32 \09%r87, %r31;\0A\09mov.b32 \09%r88, %r31;\0A\09mov.b32 \09%r89, %r31;\0A\09mov.b32 \09%r90, %r31;\0A\09mov.b32 \09%r91, %r31;\0A\09mov.b32 \09%r92, %r31;\0A\09mov.b32 \09%r93, %r31;\0A\09mov.b32 \09%r94, %r31;\0A$L__BB0_5:\0A\09mov.b64 \09%rd56, 0;\0A\09mov.b64 \09%rd54, %rd6;\0A\09mov.b64 \09%rd55, %rd5;\0A$L__BB0_6:\0A\09ld.shared.b32 \09%r15, [%rd54+-96];\0A\09ld.shared.b32 \09%r16, [%rd55+-28];\0A\09fma.rn.f32 \09%r31, %r15, %r16, %r31;\0A\09ld.shared.b32 \09%r17, [%rd55+-24];\0A\09fma.rn.f32 \09%r32, %r15, %r17, %r32;\0A\09ld.shared.b32 \09%r18, [%rd55+-20];\0A\09fma.rn.f32 \09%r33, %r15, %r18, %r33;\0A\09ld.shared.b32 \09%r19, [%rd55+-16];\0A\09fma.rn.f32 \09%r34, %r15, %r19, %r34;\0A\09ld.shared.b32 \09%r20, [%rd55+-12];\0A\09fma.rn.f32 \09%r35, %r15, %r20, %r35;\0A\09ld.shared.b32 \09%r21, [%rd55+-8];\0A\09fma.rn.f32 \09%r36, %r15, %r21, %r36;\0A\09ld.shared.b32 \09%r22, [%rd55+-4];\0A\09fma.rn.f32 \09%r37, %r15, %r22, %r37;\0A\09ld.shared.b32 \09%r23, [%rd55];\0A\09fma.rn.f32 \09%r38, %r15, %r23, %r38;\0A\09ld.shared.b32 \09%r24, [%rd54+-64];\0A\09fma.rn.f32 \09%r39, %r16, %r24, %r39;\0A\09fma.rn.f32 \09%r40, %r17, %r24, %r40;\0A\09fma.rn.f32 \09%r41, %r18, %r24, %r41;\0A\09fma.rn.f32 \09%r42, %r19, %r24, %r42;\0A\09fma.rn.f32 \09%r43, %r20, %r24, %r43;\0A\09fma.rn.f32 \09%r44, %r21, %r24, %r44;\0A\09fma.rn.f32 \09%r45, %r22, %r24, %r45;\0A\09fma.rn.f32 \09%r46, %r23, %r24, %r46;\0A\09ld.shared.b32 \09%r25, [%rd54+-32];\0A\09fma.rn.f32 \09%r47, %r16, %r25, %r47;\0A\09fma.rn.f32 \09%r48, %r17, %r25, %r48;\0A\09fma.rn.f32 \09%r49, %r18, %r25, %r49;\0A\09fma.rn.f32 \09%r50, %r19, %r25, %r50;\0A\09fma.rn.f32 \09%r51, %r20, %r25, %r51;\0A\09fma.rn.f32 \09%r52, %r21, %r25, %r52;\0A\09fma.rn.f32 \09%r53, %r22, %r25, %r53;\0A\09fma.rn.f32 \09%r54, %r23, %r25, %r54;\0A\09ld.shared.b32 \09%r26, [%rd54];\0A\09fma.rn.f32 \09%r55, %r16, %r26, %r55;\0A\09fma.rn.f32 \09%r56, %r17, %r26, %r56;\0A\09fma.rn.f32 \09%r57, %r18, %r26, %r57;\0A\09fma.rn.f32 \09%r58, %r19, %r26, %r58;\0A\09fma.rn.f32 \09%r59, %r20, %r26, %r59;\0A\09fma.rn.f32 \09%r60, %r21, %r26, %r60;\0A\09fma.rn.f32 \09%r61, %r22, %r26, %r61;\0A\09fma.rn.f32 \09%r62, %r23, %r26, %r62;\0A\09ld.shared.b32 \09%r27, [%rd54+32];\0A\09fma.rn.f32 \09%r63, %r16, %r27, %r63;\0A\09fma.rn.f32 \09%r64, %r17, %r27, %r64;\0A\09fma.rn.f32 \09%r65, %r18, %r27, %r65;\0A\09fma.rn.f32 \09%r66, %r19, %r27, %r66;\0A\09fma.rn.f32 \09%r67, %r20, %r27, %r67;\0A\09fma.rn.f32 \09%r68, %r21, %r27, %r68;\0A\09fma.rn.f32 \09%r69, %r22, %r27, %r69;\0A\09fma.rn.f32 \09%r70, %r23, %r27, %r70;\0A\09ld.shared.b32 \09%r28, [%rd54+64];\0A\09fma.rn.f32 \09%r71, %r16, %r28, %r71;\0A\09fma.rn.f32 \09%r72, %r17, %r28, %r72;\0A\09fma.rn.f32 \09%r73, %r18, %r28, %r73;\0A\09fma.rn.f32 \09%r74, %r19, %r28, %r74;\0A\09fma.rn.f32 \09%r75, %r20, %r28, %r75;\0A\09fma.rn.f32 \09%r76, %r21, %r28, %r76;\0A\09fma.rn.f32 \09%r77, %r22, %r28, %r77;\0A\09fma.rn.f32 \09%r78, %r23, %r28, %r78;\0A\09ld.shared.b32 \09%r29, [%rd54+96];\0A\09fma.rn.f32 \09%r79, %r16, %r29, %r79;\0A\09fma.rn.f32 \09%r80, %r17, %r29, %r80;\0A\09fma.rn.f32 \09%r81, %r18, %r29, %r81;\0A\09fma.rn.f32 \09%r82, %r19, %r29, %r82;\0A\09fma.rn.f32 \09%r83, %r20, %r29, %r83;\0A\09fma.rn.f32 \09%r84, %r21, %r29, %r84;\0A\09fma.rn.f32 \09%r85, %r22, %r29, %r85;\0A\09fma.rn.f32 \09%r86, %r23, %r29, %r86;\0A\09add.s64 \09%rd48, %rd2, %rd56;\0A\09shl.b64 \09%rd49, %rd48, 2;\0A\09or.b64 \09%rd50, %rd49, 224;\0A\09add.s64 \09%rd51, %rd1, %rd50;\0A\09ld.shared.b32 \09%r30, [%rd51];\0A\09fma.rn.f32 \09%r87, %r16, %r30, %r87;\0A\09fma.rn.f32 \09%r88, %r17, %r30, %r88;\0A\09fma.rn.f32 \09%r89, %r18, %r30, %r89;\0A\09fma.rn.f32 \09%r90, %r19, %r30, %r90;\0A\09fma.rn.f32 \09%r91, %r20, %r30, %r91;\0A\09fma.rn.f32 \09%r92, %r21, %r30, %r92;\0A\09fma.rn.f32 \09%r93, %r22, %r30, %r93;\0A\09fma.rn.f32 \09%r94, %r23, %r30, %r94;\0A\09add.s64 \09%rd56, %rd56, 1;\0A\09add.s64 \09%rd55, %rd55, 512;\0A\09add.s64 \09%rd54, %rd54, 4;\0A\09setp.ne.b64 \09%p3, %rd56, 8;\0A\09@%p3 bra \09$L__BB0_6;\0A\09setp.ne.b64 \09%p4, %rd53, 3;\0A\09@%p4 bra \09$L__BB0_9;\0A\09st.global.v4.b32 \09[%rd3], {%r31, %r32, %r33, %r34};\0A\09st.global.v4.b32 \09[%rd3+16], {%r35, %r36, %r37, %r38};\0A\09st.global.v4.b32 \09[%rd3+1536], {%r39, %r40, %r41, %r42};\0A\09st.global.v4.b32 \09[%rd3+1552], {%r43, %r44, %r45, %r46};\0A\09st.global.v4.b32 \09[%rd3+3072], {%r47, %r48, %r49, %r50};\0A\09st.global.v4.b32 \09[%rd3+3088], {%r51, %r52, %r53, %r54};\0A\09st.global.v4.b32 \09[%rd3+4608], {%r55, %r56, %r57, %r58};\0A\09st.global.v4.b32 \09[%rd3+4624], {%r59, %r60, %r61, %r62};\0A\09st.global.v4.b32 \09[%rd3+6144], {%r63, %r64, %r65, %r66};\0A\09st.global.v4.b32 \09[%rd3+6160], {%r67, %r68, %r69, %r70};\0A\09st.global.v4.b32 \09[%rd3+7680], {%r71, %r72, %r73, %r74};\0A\09st.global.v4.b32 \09[%rd3+7696], {%r75, %r76, %r77, %r78};\0A\09st.global.v4.b32 \09[%rd3+9216], {%r79, %r80, %r81, %r82};\0A\09st.global.v4.b32 \09[%rd3+9232], {%r83, %r84, %r85, %r86};\0A\09st.global.v4.b32 \09[%rd4], {%r87, %r88, %r89, %r90};\0A\09st.global.v4.b32 \09[%rd4+16], {%r91, %r92, %r93, %r94};\0A\09bra.uni \09$L__BB0_9;\0A$L__BB0_10:\0A\09ret;\0A\0A}\0A">]
  llvm.func @printMemrefF32(i64, !llvm.ptr) attributes {sym_visibility = "private"}
  llvm.func @reference(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: !llvm.ptr, %arg8: !llvm.ptr, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i64, %arg13: i64, %arg14: !llvm.ptr, %arg15: !llvm.ptr, %arg16: i64, %arg17: i64, %arg18: i64, %arg19: i64, %arg20: i64) {
    %0 = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %1 = llvm.mlir.constant(384 : index) : i64
    %2 = llvm.mlir.constant(256 : index) : i64
    %3 = llvm.mlir.constant(32 : index) : i64
    %4 = llvm.mlir.constant(1 : index) : i64
    %5 = llvm.mlir.constant(0 : index) : i64
    llvm.br ^bb1(%5 : i64)
  ^bb1(%6: i64):  // 2 preds: ^bb0, ^bb6
    %7 = llvm.icmp "slt" %6, %2 : i64
    llvm.cond_br %7, ^bb2(%5 : i64), ^bb7
  ^bb2(%8: i64):  // 2 preds: ^bb1, ^bb5
    %9 = llvm.icmp "slt" %8, %1 : i64
    llvm.cond_br %9, ^bb3(%5, %0 : i64, f32), ^bb6
  ^bb3(%10: i64, %11: f32):  // 2 preds: ^bb2, ^bb4
    %12 = llvm.icmp "slt" %10, %3 : i64
    llvm.cond_br %12, ^bb4, ^bb5
  ^bb4:  // pred: ^bb3
    %13 = llvm.mul %6, %3 overflow<nsw, nuw> : i64
    %14 = llvm.add %13, %10 overflow<nsw, nuw> : i64
    %15 = llvm.getelementptr inbounds|nuw %arg1[%14] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %16 = llvm.load %15 : !llvm.ptr -> f32
    %17 = llvm.mul %10, %1 overflow<nsw, nuw> : i64
    %18 = llvm.add %17, %8 overflow<nsw, nuw> : i64
    %19 = llvm.getelementptr inbounds|nuw %arg8[%18] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %20 = llvm.load %19 : !llvm.ptr -> f32
    %21 = llvm.fmul %16, %20 : f32
    %22 = llvm.fadd %11, %21 : f32
    %23 = llvm.add %10, %4 : i64
    llvm.br ^bb3(%23, %22 : i64, f32)
  ^bb5:  // pred: ^bb3
    %24 = llvm.mul %6, %1 overflow<nsw, nuw> : i64
    %25 = llvm.add %24, %8 overflow<nsw, nuw> : i64
    %26 = llvm.getelementptr inbounds|nuw %arg15[%25] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %11, %26 : f32, !llvm.ptr
    %27 = llvm.add %8, %4 : i64
    llvm.br ^bb2(%27 : i64)
  ^bb6:  // pred: ^bb2
    %28 = llvm.add %6, %4 : i64
    llvm.br ^bb1(%28 : i64)
  ^bb7:  // pred: ^bb1
    llvm.return
  }
  llvm.func @fill(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64) {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %1 = llvm.mlir.constant(0 : index) : i64
    %2 = llvm.mlir.constant(11 : index) : i64
    %3 = llvm.mlir.constant(7 : index) : i64
    %4 = llvm.mlir.constant(5 : index) : i64
    %5 = llvm.mlir.constant(3 : index) : i64
    %6 = llvm.mlir.constant(1 : index) : i64
    %7 = llvm.insertvalue %arg0, %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %8 = llvm.insertvalue %arg1, %7[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %9 = llvm.insertvalue %arg2, %8[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %10 = llvm.insertvalue %arg3, %9[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %11 = llvm.insertvalue %arg5, %10[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %12 = llvm.insertvalue %arg4, %11[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %13 = llvm.extractvalue %12[3] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %14 = llvm.alloca %6 x !llvm.array<2 x i64> : (i64) -> !llvm.ptr
    llvm.store %13, %14 : !llvm.array<2 x i64>, !llvm.ptr
    %15 = llvm.getelementptr %14[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x i64>
    %16 = llvm.load %15 : !llvm.ptr -> i64
    %17 = llvm.alloca %6 x !llvm.array<2 x i64> : (i64) -> !llvm.ptr
    llvm.store %13, %17 : !llvm.array<2 x i64>, !llvm.ptr
    %18 = llvm.getelementptr %17[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x i64>
    %19 = llvm.load %18 : !llvm.ptr -> i64
    llvm.br ^bb1(%1 : i64)
  ^bb1(%20: i64):  // 2 preds: ^bb0, ^bb4
    %21 = llvm.icmp "slt" %20, %16 : i64
    llvm.cond_br %21, ^bb2(%1 : i64), ^bb5
  ^bb2(%22: i64):  // 2 preds: ^bb1, ^bb3
    %23 = llvm.icmp "slt" %22, %19 : i64
    llvm.cond_br %23, ^bb3, ^bb4
  ^bb3:  // pred: ^bb2
    %24 = llvm.mul %20, %3 : i64
    %25 = llvm.mul %22, %5 : i64
    %26 = llvm.add %24, %25 : i64
    %27 = llvm.urem %26, %2 : i64
    %28 = llvm.sub %27, %4 : i64
    %29 = llvm.sitofp %28 : i64 to f32
    %30 = llvm.mul %20, %arg5 overflow<nsw, nuw> : i64
    %31 = llvm.add %30, %22 overflow<nsw, nuw> : i64
    %32 = llvm.getelementptr inbounds|nuw %arg1[%31] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %29, %32 : f32, !llvm.ptr
    %33 = llvm.add %22, %6 : i64
    llvm.br ^bb2(%33 : i64)
  ^bb4:  // pred: ^bb2
    %34 = llvm.add %20, %6 : i64
    llvm.br ^bb1(%34 : i64)
  ^bb5:  // pred: ^bb1
    llvm.return
  }
  llvm.func @main() {
    %0 = llvm.mlir.constant(98296 : index) : i64
    %1 = llvm.mlir.constant(50120 : index) : i64
    %2 = llvm.mlir.constant(8 : index) : i64
    %3 = llvm.mlir.constant(2 : index) : i64
    %4 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %5 = llvm.mlir.zero : !llvm.ptr
    %6 = llvm.mlir.constant(32 : index) : i64
    %7 = llvm.mlir.addressof @vector_print_str : !llvm.ptr
    %8 = llvm.mlir.constant(0 : i64) : i64
    %9 = llvm.mlir.constant(384 : index) : i64
    %10 = llvm.mlir.constant(256 : index) : i64
    %11 = llvm.mlir.constant(1 : index) : i64
    %12 = llvm.mlir.constant(0 : index) : i64
    %13 = llvm.getelementptr %5[8192] : (!llvm.ptr) -> !llvm.ptr, f32
    %14 = llvm.ptrtoint %13 : !llvm.ptr to i64
    %15 = llvm.call @malloc(%14) : (i64) -> !llvm.ptr
    %16 = llvm.insertvalue %15, %4[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %17 = llvm.insertvalue %15, %16[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %18 = llvm.insertvalue %12, %17[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %19 = llvm.insertvalue %10, %18[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %20 = llvm.insertvalue %6, %19[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %21 = llvm.insertvalue %6, %20[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %22 = llvm.insertvalue %11, %21[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %23 = llvm.getelementptr %5[12288] : (!llvm.ptr) -> !llvm.ptr, f32
    %24 = llvm.ptrtoint %23 : !llvm.ptr to i64
    %25 = llvm.call @malloc(%24) : (i64) -> !llvm.ptr
    %26 = llvm.insertvalue %25, %4[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %27 = llvm.insertvalue %25, %26[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %28 = llvm.insertvalue %12, %27[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %29 = llvm.insertvalue %6, %28[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %30 = llvm.insertvalue %9, %29[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %31 = llvm.insertvalue %9, %30[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %32 = llvm.insertvalue %11, %31[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %33 = llvm.getelementptr %5[98304] : (!llvm.ptr) -> !llvm.ptr, f32
    %34 = llvm.ptrtoint %33 : !llvm.ptr to i64
    %35 = llvm.call @malloc(%34) : (i64) -> !llvm.ptr
    %36 = llvm.insertvalue %35, %4[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %37 = llvm.insertvalue %35, %36[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %38 = llvm.insertvalue %12, %37[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %39 = llvm.insertvalue %10, %38[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %40 = llvm.insertvalue %9, %39[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %41 = llvm.insertvalue %9, %40[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %42 = llvm.insertvalue %11, %41[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %43 = llvm.call @malloc(%34) : (i64) -> !llvm.ptr
    %44 = llvm.alloca %11 x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
    llvm.store %22, %44 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
    %45 = llvm.alloca %11 x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
    llvm.store %32, %45 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
    %46 = llvm.alloca %11 x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
    llvm.store %42, %46 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
    llvm.call @make_device_visible_f32(%3, %44) : (i64, !llvm.ptr) -> ()
    llvm.call @make_device_visible_f32(%3, %45) : (i64, !llvm.ptr) -> ()
    llvm.call @make_device_visible_f32(%3, %46) : (i64, !llvm.ptr) -> ()
    %47 = llvm.extractvalue %22[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %48 = llvm.extractvalue %22[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %49 = llvm.extractvalue %22[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %50 = llvm.extractvalue %22[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %51 = llvm.extractvalue %22[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %52 = llvm.extractvalue %22[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %53 = llvm.extractvalue %22[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @fill(%47, %48, %49, %50, %51, %52, %53) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
    %54 = llvm.extractvalue %32[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %55 = llvm.extractvalue %32[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %56 = llvm.extractvalue %32[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %57 = llvm.extractvalue %32[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %58 = llvm.extractvalue %32[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %59 = llvm.extractvalue %32[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %60 = llvm.extractvalue %32[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @fill(%54, %55, %56, %57, %58, %59, %60) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
    llvm.call @matmul(%15, %15, %12, %10, %6, %6, %11, %25, %25, %12, %6, %9, %9, %11, %35, %35, %12, %10, %9, %9, %11) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
    llvm.call @reference(%15, %15, %12, %10, %6, %6, %11, %25, %25, %12, %6, %9, %9, %11, %43, %43, %12, %10, %9, %9, %11) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
    llvm.br ^bb1(%12, %8 : i64, i64)
  ^bb1(%61: i64, %62: i64):  // 2 preds: ^bb0, ^bb4
    %63 = llvm.icmp "slt" %61, %10 : i64
    llvm.cond_br %63, ^bb2(%12, %62 : i64, i64), ^bb5
  ^bb2(%64: i64, %65: i64):  // 2 preds: ^bb1, ^bb3
    %66 = llvm.icmp "slt" %64, %9 : i64
    llvm.cond_br %66, ^bb3, ^bb4
  ^bb3:  // pred: ^bb2
    %67 = llvm.mul %61, %9 overflow<nsw, nuw> : i64
    %68 = llvm.add %67, %64 overflow<nsw, nuw> : i64
    %69 = llvm.getelementptr inbounds|nuw %35[%68] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %70 = llvm.load %69 : !llvm.ptr -> f32
    %71 = llvm.getelementptr inbounds|nuw %43[%68] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %72 = llvm.load %71 : !llvm.ptr -> f32
    %73 = llvm.fcmp "une" %70, %72 : f32
    %74 = llvm.zext %73 : i1 to i64
    %75 = llvm.add %65, %74 : i64
    %76 = llvm.add %64, %11 : i64
    llvm.br ^bb2(%76, %75 : i64, i64)
  ^bb4:  // pred: ^bb2
    %77 = llvm.add %61, %11 : i64
    llvm.br ^bb1(%77, %65 : i64, i64)
  ^bb5:  // pred: ^bb1
    llvm.call @printString(%7) : (!llvm.ptr) -> ()
    llvm.call @printI64(%62) : (i64) -> ()
    llvm.call @printNewline() : () -> ()
    %78 = llvm.insertvalue %11, %38[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %79 = llvm.insertvalue %9, %78[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %80 = llvm.insertvalue %2, %79[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %81 = llvm.insertvalue %11, %80[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %82 = llvm.insertvalue %1, %37[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %83 = llvm.insertvalue %11, %82[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %84 = llvm.insertvalue %9, %83[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %85 = llvm.insertvalue %2, %84[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %86 = llvm.insertvalue %11, %85[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %87 = llvm.insertvalue %0, %37[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %88 = llvm.insertvalue %11, %87[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %89 = llvm.insertvalue %9, %88[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %90 = llvm.insertvalue %2, %89[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %91 = llvm.insertvalue %11, %90[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %92 = llvm.alloca %11 x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
    llvm.store %81, %92 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
    %93 = llvm.alloca %11 x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
    llvm.store %86, %93 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
    %94 = llvm.alloca %11 x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
    llvm.store %91, %94 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
    llvm.call @printMemrefF32(%3, %92) : (i64, !llvm.ptr) -> ()
    llvm.call @printMemrefF32(%3, %93) : (i64, !llvm.ptr) -> ()
    llvm.call @printMemrefF32(%3, %94) : (i64, !llvm.ptr) -> ()
    llvm.call @free(%15) : (!llvm.ptr) -> ()
    llvm.call @free(%25) : (!llvm.ptr) -> ()
    llvm.call @free(%35) : (!llvm.ptr) -> ()
    llvm.call @free(%43) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @make_device_visible_f32(%arg0: i64, %arg1: !llvm.ptr) {
    %0 = llvm.mlir.zero : !llvm.ptr
    %1 = llvm.getelementptr %0[1] : (!llvm.ptr) -> !llvm.ptr, f32
    %2 = llvm.ptrtoint %1 : !llvm.ptr to i64
    llvm.call @mgpuMemHostRegisterMemRef(%arg0, %arg1, %2) : (i64, !llvm.ptr, i64) -> ()
    llvm.return
  }
  llvm.func @make_device_visible_i64(%arg0: i64, %arg1: !llvm.ptr) {
    %0 = llvm.mlir.zero : !llvm.ptr
    %1 = llvm.getelementptr %0[1] : (!llvm.ptr) -> !llvm.ptr, i64
    %2 = llvm.ptrtoint %1 : !llvm.ptr to i64
    llvm.call @mgpuMemHostRegisterMemRef(%arg0, %arg1, %2) : (i64, !llvm.ptr, i64) -> ()
    llvm.return
  }
  llvm.func @mgpuTensorMapEncodeTiledMemref(i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuMemHostRegisterMemRef(i64, !llvm.ptr, i64)
}

