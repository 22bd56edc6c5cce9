__dsh_type, __dsh_str, __dsh_TypeError = type, str, TypeError
def __dsh_str_method(name, call):
    def method(*args, **kwargs):
        if not args:
            raise __dsh_TypeError(f"unbound method str.{name}() needs an argument")
        if __dsh_type(args[0]) is not __dsh_str:
            raise __dsh_TypeError(f"descriptor '{name}' for 'str' objects doesn't apply to a '{__dsh_type(args[0]).__name__}' object")
        return call(*args, **kwargs)
    return method
