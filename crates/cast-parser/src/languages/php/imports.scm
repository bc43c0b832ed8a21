; PHP `use` declarations (`use A\B\C;`, `use A\B\{C, D as E};`, `use function A\f;`), read by
; `php.rs`'s `use_declaration`. `require`/`include` load files by computed paths and are no
; imports here.

(namespace_use_declaration) @import @import.tree
