__dsh_getattr, __dsh_hasattr, __dsh_list, __dsh_tuple, __dsh_dict, __dsh_zip, __dsh_isinstance, __dsh_type, __dsh_TypeError = getattr, hasattr, list, tuple, dict, zip, isinstance, type, TypeError
import copy as __dsh_copy
def __dsh_is_dataclass_instance(value):
    return __dsh_hasattr(__dsh_type(value), "__dataclass_fields__")
def __dsh_fields(value):
    if not __dsh_hasattr(value, "__dataclass_fields__"):
        raise __dsh_TypeError("must be called with a dataclass type or instance")
    return __dsh_tuple(value.__dataclass_fields__.values())
def __dsh_dataclass_inner(value, factory, as_dict):
    if __dsh_is_dataclass_instance(value):
        members = [__dsh_dataclass_inner(__dsh_getattr(value, name), factory, as_dict) for name in value.__dataclass_fields__]
        if as_dict:
            return factory([(name, member) for name, member in __dsh_zip(value.__dataclass_fields__, members)])
        return factory(members)
    if __dsh_isinstance(value, __dsh_tuple) and __dsh_hasattr(value, "_fields"):
        return __dsh_type(value)(*[__dsh_dataclass_inner(member, factory, as_dict) for member in value])
    if __dsh_isinstance(value, (__dsh_list, __dsh_tuple)):
        return __dsh_type(value)([__dsh_dataclass_inner(member, factory, as_dict) for member in value])
    if __dsh_isinstance(value, __dsh_dict):
        return __dsh_type(value)([(__dsh_dataclass_inner(key, factory, as_dict), __dsh_dataclass_inner(member, factory, as_dict)) for key, member in value.items()])
    return __dsh_copy.deepcopy(value)
def __dsh_asdict(value, dict_factory=__dsh_dict):
    if not __dsh_is_dataclass_instance(value):
        raise __dsh_TypeError("asdict() should be called on dataclass instances")
    return __dsh_dataclass_inner(value, dict_factory, True)
def __dsh_astuple(value, tuple_factory=__dsh_tuple):
    if not __dsh_is_dataclass_instance(value):
        raise __dsh_TypeError("astuple() should be called on dataclass instances")
    return __dsh_dataclass_inner(value, tuple_factory, False)
