print("clawtalk")
