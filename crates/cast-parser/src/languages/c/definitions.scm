; C definitions, after tree-sitter-c's tags.scm and what ctags lists by default: functions
; with a body (not prototypes); `declarations.scm` adds structs, unions, enums, typedefs,
; macros and file-level variables (not `extern` declarations, not locals). The name inside a
; declarator (`*f(void)`, `**g(void)`) is read by the description's `declarator` (mod.rs): each
; shape spelled out here cost tens of milliseconds of compiling with C++'s grammar.

(function_definition declarator: (_) @declarator) @definition.function
