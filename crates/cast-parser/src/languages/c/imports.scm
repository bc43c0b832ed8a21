; C includes: `#include "a/b.h"` and `#include <stdio.h>` (see `c.rs`'s `include`).

(preproc_include path: (_) @import.tree) @import
