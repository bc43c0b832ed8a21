; C definitions, after tree-sitter-c's tags.scm and what ctags lists by default: functions
; with a body (not prototypes); `declarations.scm` adds structs, unions, enums, typedefs,
; macros and file-level variables (not `extern` declarations, not locals).

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
