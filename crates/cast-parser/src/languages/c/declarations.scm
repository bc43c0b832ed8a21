; Declarations C and C++ share (C++'s description reads this file too): structs, unions and
; enums with a body, typedefs, macros, and file-level variables.

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

(type_definition declarator: (_) @declarator) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; Variables: declarations, not `extern` ones and not prototypes (the `declarator` in C's
; mod.rs reads the name and refuses a function's declarator). Only those at file level are
; symbols: the description's `variable_parents` names the nodes a declaration must sit in (the
; file, a namespace, a preprocessor conditional) and drops any inside a function.
((declaration declarator: (_) @declarator) @definition.variable
  (#not-match? @definition.variable "^extern[ \t]"))
