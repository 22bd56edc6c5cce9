__dsh_getattr, __dsh_tuple, __dsh_bool = getattr, tuple, bool
__dsh_operator = __dsh_module()
def __dsh_itemgetter(item, *items):
    if not items:
        def get(target):
            return target[item]
        return get
    every = (item,) + items
    def get_all(target):
        return __dsh_tuple([target[each] for each in every])
    return get_all
def __dsh_attrgetter(attribute, *attributes):
    def resolve(target, dotted):
        for name in dotted.split('.'):
            target = __dsh_getattr(target, name)
        return target
    if not attributes:
        def get(target):
            return resolve(target, attribute)
        return get
    every = (attribute,) + attributes
    def get_all(target):
        return __dsh_tuple([resolve(target, each) for each in every])
    return get_all
__dsh_operator.itemgetter = __dsh_itemgetter
__dsh_operator.attrgetter = __dsh_attrgetter
__dsh_operator.add = lambda a, b: a + b
__dsh_operator.sub = lambda a, b: a - b
__dsh_operator.mul = lambda a, b: a * b
__dsh_operator.truediv = lambda a, b: a / b
__dsh_operator.floordiv = lambda a, b: a // b
__dsh_operator.mod = lambda a, b: a % b
__dsh_operator.pow = lambda a, b: a ** b
__dsh_operator.neg = lambda a: -a
__dsh_operator.eq = lambda a, b: a == b
__dsh_operator.ne = lambda a, b: a != b
__dsh_operator.lt = lambda a, b: a < b
__dsh_operator.le = lambda a, b: a <= b
__dsh_operator.gt = lambda a, b: a > b
__dsh_operator.ge = lambda a, b: a >= b
__dsh_operator.not_ = lambda a: not a
__dsh_operator.truth = lambda a: __dsh_bool(a)
__dsh_operator.contains = lambda a, b: b in a
__dsh_operator.getitem = lambda a, b: a[b]
__dsh_operator.and_ = lambda a, b: a & b
__dsh_operator.or_ = lambda a, b: a | b
__dsh_operator.xor = lambda a, b: a ^ b
