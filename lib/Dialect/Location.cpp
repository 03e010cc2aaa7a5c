//===- Location.cpp - Locations as users read them ------------------------===//

#include "Vx/Location.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::optional<std::string> vx::getFileLineCol(Location loc) {
  std::optional<std::string> text;
  loc->walk([&](Location nested) {
    auto fileLoc = dyn_cast<FileLineColLoc>(nested);
    if (!fileLoc)
      return WalkResult::advance();
    text = (fileLoc.getFilename().getValue() + ":" + Twine(fileLoc.getLine()) +
            ":" + Twine(fileLoc.getColumn()))
               .str();
    return WalkResult::interrupt();
  });
  return text;
}

std::string vx::formatLocation(Location loc) {
  if (std::optional<std::string> text = getFileLineCol(loc))
    return *text;
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}
