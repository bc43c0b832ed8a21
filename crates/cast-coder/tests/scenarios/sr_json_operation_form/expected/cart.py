class Cart:
    def total(self):
        return sum(i.price * i.qty for i in self.items)
