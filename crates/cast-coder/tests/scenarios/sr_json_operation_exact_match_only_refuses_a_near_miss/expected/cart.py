class Cart:
    def total(self):
        return sum(i.price for i in self.items)
