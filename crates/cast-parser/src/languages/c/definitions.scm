; C definitions, after tree-sitter-c's tags.scm and what ctags lists by default: functions
; with a body (not prototypes); `declarations.scm` adds structs, unions, enums, typedefs,
; macros and file-level variables (not `extern` declarations, not locals). The shapes of one
; node are alternatives of one pattern: tree-sitter analyses each pattern's steps when it
; compiles a query, and with C++'s grammar every pattern over `function_definition` cost
; 20-30 ms.

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function
