//===- VxTypes.td - Vx types -------------------------------*- tablegen -*-===//

#ifndef VX_TYPES
#define VX_TYPES

include "Vx/VxDialect.td"

def Vx_TokenType : TypeDef<Vx_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "An outstanding asynchronous transfer";
  let description = [{
    Returned by `vx.transfer_async` and consumed by `vx.await`. A token lives
    inside one spawn body; the destination of its transfer is readable only
    after the await.

    Example: `%t = vx.transfer_async %a to %b : memref<4xf32> to memref<4xf32>`
    has type `!vx.token`.
  }];
}

#endif // VX_TYPES
