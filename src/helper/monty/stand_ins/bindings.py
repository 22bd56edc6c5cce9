__dsh_getattr, __dsh_setattr, __dsh_len, __dsh_KeyError, __dsh_RuntimeError, __dsh_TypeError = getattr, setattr, len, KeyError, RuntimeError, TypeError
__dsh_failures = []
def __dsh_binding(function, name):
    async def call(*args):
        if __dsh_len(args) != 1:
            if args:
                raise __dsh_TypeError(f"{name}() takes 1 positional argument but {__dsh_len(args)} were given")
            raise __dsh_TypeError(f"{name}() missing 1 required positional argument: 'args'")
        try:
            return await function(args[0])
        except __dsh_RuntimeError as error:
            __dsh_failures.append((error, name))
            raise
    return call
def __dsh_member(value, member):
    for error, name in __dsh_failures:
        if error is value:
            return name
    return __dsh_getattr(value, member)
