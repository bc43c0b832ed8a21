; Rust imports: `use` trees (flattened by the description's import_tree), `mod name;`
; (a module in another file) and `extern crate`.

(use_declaration argument: (_) @import.tree) @import
(mod_item !body) @import.tree @import
(extern_crate_declaration name: (identifier) @import.module alias: (identifier)? @import.alias) @import
