__dsh_type, __dsh_hasattr = type, hasattr
# Monty has no `callable`: what it can call is a function, a built-in, a class, a partial, or an
# object whose class defines `__call__`.
__dsh_callable_types = ("function", "builtin_function_or_method", "method", "type", "partial")
def __dsh_callable(obj):
    return __dsh_type(obj).__name__ in __dsh_callable_types or __dsh_hasattr(obj, "__call__")
