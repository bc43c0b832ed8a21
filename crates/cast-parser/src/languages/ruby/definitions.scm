; Ruby definitions, after tree-sitter-ruby's tags.scm: classes, modules, methods (`def m`,
; `def self.m`), and constants assigned in a class, module or file (`VERSION = '1.0'`).

; A name is read by the description's `declarator` (mod.rs): `Foo`, or `A::B::Foo` with its
; scope as the receiver. Spelled out here, the two shapes doubled this query's compile time.
(class name: (_) @declarator) @definition.class
(module name: (_) @declarator) @definition.module

(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method

(assignment left: (_) @declarator) @definition.constant
