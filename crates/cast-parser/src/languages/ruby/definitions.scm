; Ruby definitions, after tree-sitter-ruby's tags.scm: classes, modules, methods (`def m`,
; `def self.m`), and constants assigned in a class, module or file (`VERSION = '1.0'`).

(class name: (constant) @name) @definition.class
(class name: (scope_resolution scope: (_)? @receiver name: (constant) @name)) @definition.class
(module name: (constant) @name) @definition.module
(module name: (scope_resolution scope: (_)? @receiver name: (constant) @name)) @definition.module

(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method

(assignment left: (constant) @name) @definition.constant
