__dsh_len, __dsh_list, __dsh_sorted, __dsh_reversed, __dsh_range, __dsh_iter = len, list, sorted, reversed, range, iter
__dsh_heapq = __dsh_module()
def __dsh_heap_down(heap, start, at):
    item = heap[at]
    while at > start:
        parent_at = (at - 1) >> 1
        parent = heap[parent_at]
        if item < parent:
            heap[at] = parent
            at = parent_at
            continue
        break
    heap[at] = item
def __dsh_heap_up(heap, at):
    end = __dsh_len(heap)
    start = at
    item = heap[at]
    child = 2 * at + 1
    while child < end:
        right = child + 1
        if right < end and not heap[child] < heap[right]:
            child = right
        heap[at] = heap[child]
        at = child
        child = 2 * at + 1
    heap[at] = item
    __dsh_heap_down(heap, start, at)
def __dsh_heappush(heap, item):
    heap.append(item)
    __dsh_heap_down(heap, 0, __dsh_len(heap) - 1)
def __dsh_heappop(heap):
    last = heap.pop()
    if heap:
        first = heap[0]
        heap[0] = last
        __dsh_heap_up(heap, 0)
        return first
    return last
def __dsh_heapreplace(heap, item):
    first = heap[0]
    heap[0] = item
    __dsh_heap_up(heap, 0)
    return first
def __dsh_heappushpop(heap, item):
    if heap and heap[0] < item:
        item, heap[0] = heap[0], item
        __dsh_heap_up(heap, 0)
    return item
def __dsh_heapify(heap):
    for at in __dsh_reversed(__dsh_range(__dsh_len(heap) // 2)):
        __dsh_heap_up(heap, at)
def __dsh_nlargest(n, iterable, key=None):
    if n <= 0:
        return []
    return __dsh_sorted(iterable, key=key, reverse=True)[:n]
def __dsh_nsmallest(n, iterable, key=None):
    if n <= 0:
        return []
    return __dsh_sorted(iterable, key=key)[:n]
def __dsh_merge(*iterables, key=None, reverse=False):
    sources = [__dsh_list(iterable) for iterable in iterables]
    positions = [0 for _ in sources]
    merged = []
    while True:
        best = None
        best_key = None
        for at in __dsh_range(__dsh_len(sources)):
            if positions[at] < __dsh_len(sources[at]):
                item = sources[at][positions[at]]
                item_key = item if key is None else key(item)
                if best is None or (best_key < item_key if reverse else item_key < best_key):
                    best = at
                    best_key = item_key
        if best is None:
            return __dsh_iter(merged)
        merged.append(sources[best][positions[best]])
        positions[best] += 1
__dsh_heapq.heappush = __dsh_heappush
__dsh_heapq.heappop = __dsh_heappop
__dsh_heapq.heapreplace = __dsh_heapreplace
__dsh_heapq.heappushpop = __dsh_heappushpop
__dsh_heapq.heapify = __dsh_heapify
__dsh_heapq.nlargest = __dsh_nlargest
__dsh_heapq.nsmallest = __dsh_nsmallest
__dsh_heapq.merge = __dsh_merge
